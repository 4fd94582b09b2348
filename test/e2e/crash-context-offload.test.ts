/** Issue 4, F10: see crash-context.test.ts for the scenarios and how to run them. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  expectPrefixKept,
  expectVerified,
  type FnResponse,
  gate,
  MODEL_VARS,
  type Offload,
  offloadOf,
  readBlob,
  SCENARIO_TIMEOUT_MS,
  show,
  toolOutput,
} from "./crash-context/checks";
import {
  type CrashRun,
  canonical,
  ndjsonLines,
  runCrashAtFailpoint,
  scenario,
  sha256Hex,
} from "./crash-context/run-crash";
import { describeEvent, type Event } from "./harness/api";
import { type FakeOpenAI, messageText, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { type FakeService, startFakeService } from "./harness/fake-service";

// ---------------------------------------------------------------------------------------------
// F10: kill -9 after an offloaded result's T2 committed, before any request used its placeholder.

const BIG_PATH = "/big-report";
const NEEDLE = "NEEDLE-4a7c-end-of-report";
/** ~200 KB of report text; the needle sits near the end, far past any preview. */
const BIG_BODY = (() => {
  const rows = Array.from(
    { length: 2600 },
    (_, i) => `row ${String(i + 1).padStart(5, "0")}: station ${i % 17} reading ${(i * 7919) % 10007} ok`,
  );
  rows.splice(2500, 0, NEEDLE);
  return `${rows.join("\n")}\n`;
})();
const F10_USER = "Fetch the report from the service, look at its first pages through the archive, then say done.";

type Placeholder = { offloaded: true; tool: string; bytes: number; sha256: string; ref: string; preview: string };
type ReadPage = { text: string; offset: number; nextOffset: number | null; bytes: number };

const f10 = scenario(gate, async (own) => {
  const service = await startFakeService();
  own.push(service);
  service.respond(BIG_PATH, {
    status: 200,
    headers: { "content-type": "text/plain; charset=utf-8" },
    body: BIG_BODY,
  });
  const fake = await startFakeOpenAI(
    scriptedAgent((step, ctx) => {
      const last = ctx.toolResults.at(-1);
      switch (step) {
        case 0:
          return {
            text: "Fetching the report.",
            toolCalls: [{ name: "http_fetch", args: { url: `${service.url}${BIG_PATH}`, method: "GET" } }],
          };
        case 1: {
          const ph = toolOutput(last) as Placeholder | undefined;
          if (!ph?.offloaded)
            return { status: 400, text: `expected a placeholder, got ${messageText(last).slice(0, 200)}` };
          return {
            text: "The result was archived; reading it.",
            toolCalls: [{ name: "read_archive", args: { ref: ph.ref, mode: "read" } }],
          };
        }
        case 2: {
          const ph = toolOutput(ctx.toolResults[0]) as Placeholder;
          const page = toolOutput(last) as ReadPage;
          return {
            text: "Reading the next page.",
            toolCalls: [
              { name: "read_archive", args: { ref: ph.ref, mode: "read", offset: page.nextOffset, limit: 16384 } },
            ],
          };
        }
        default:
          return { text: "done" };
      }
    }),
  );
  own.push(fake);
  const run = await runCrashAtFailpoint({
    label: "F10",
    failpoint: "F10",
    fake,
    vars: { ...MODEL_VARS(fake), HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*" },
    session: { title: "crash F10", tools: ["http_fetch", "read_archive"] },
    message: F10_USER,
  });
  own.push(run);
  console.info(`[F10] timing ${JSON.stringify(run.timing)}`);
  return { fake, service, run };
});

describe("F10: kill -9 after an offloaded result committed, before its placeholder was used", () => {
  let fake: FakeOpenAI;
  let service: FakeService;
  let run: CrashRun | undefined;
  let t2: Event;
  let offload: Offload;
  let blob: Buffer;

  beforeAll(async () => {
    ({ fake, service, run } = await f10.start());
  }, SCENARIO_TIMEOUT_MS);

  it("reached F10 with the offloaded T2 as the last committed event", () => {
    const r = run!;
    const before = ndjsonLines(r.preKillExport).map((l) => JSON.parse(l) as Event);
    const last = before.at(-1)!;
    expect(last.content, describeEvent(last)).toMatchObject({
      type: "functionResponse",
      name: "http_fetch",
      status: "ok",
    });
    expect(offloadOf(last)).toBeDefined();
    // Only the call that fetched: no model request has seen the placeholder yet.
    expect(r.chatRequestsAtKill).toBe(1);
    expect(service.hits(BIG_PATH, "GET")).toBe(1);
  });

  it("keeps exactly one T2 with stateDelta.offload for the call, committed before the kill and never redone", () => {
    const r = run!;
    const { events } = r.final;
    const call = events.find((e) => e.content?.type === "functionCall" && e.content.name === "http_fetch")!;
    const callId = (call.content as { callId: string }).callId;
    const answers = events.filter((e) => e.content?.type === "functionResponse" && e.content.callId === callId);
    expect(answers, show(r)).toHaveLength(1);
    t2 = answers[0]!;
    expect(t2.seq).toBe(r.preKillSession.highWater);
    expect(t2.actions?.toolRecovery).toBeUndefined();
    expect(events.filter((e) => offloadOf(e))).toEqual([t2]);
    offload = offloadOf(t2)!;
    expect(offload).toEqual({
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      bytes: expect.any(Number),
      preview: expect.any(String),
    });
    // The log keeps the whole result; the offload names its canonical bytes.
    const response = (t2.content as FnResponse).response as { status: number; body: string; truncated: boolean };
    expect(response).toMatchObject({ status: 200, body: BIG_BODY, truncated: false });
    const text = canonical(response);
    expect(offload.bytes).toBe(Buffer.byteLength(text));
    expect(offload.sha256).toBe(sha256Hex(text));
    expect(Buffer.byteLength(offload.preview)).toBeLessThanOrEqual(512);
    expect(text.startsWith(offload.preview)).toBe(true);
    // The GET was not repeated after the restart.
    expect(service.hits(BIG_PATH, "GET")).toBe(1);
    // T2 was committed: nothing to re-run, interrupt or re-issue, so no notice (docs/API.md §7.11).
    const notices = events.filter((e) => e.actions?.stateDelta?.recoveryNotice);
    expect(notices).toEqual([]);
  });

  it("serves the archived blob with matching size and sha256: no dangling placeholder", async () => {
    const r = run!;
    blob = await readBlob(r, offload.sha256, offload.bytes);
    expect(blob.toString("utf8")).toBe(canonical((t2.content as FnResponse).response));
    const res = await r.api.raw("GET", `/v1/sessions/${r.sessionId}/archive/${offload.sha256}?offset=1000&limit=500`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(blob.subarray(1000, 1500))).toBe(true);
  });

  it("shows the model the placeholder after the restart, not the 200 KB", () => {
    const r = run!;
    const first = fake.chatRequests()[r.chatRequestsAtKill]!;
    const msgs = first.body.messages;
    const toolMsg = msgs.at(-1)!;
    expect(toolMsg.role).toBe("tool");
    expect(toolOutput(toolMsg)).toEqual({
      offloaded: true,
      tool: "http_fetch",
      bytes: offload.bytes,
      sha256: offload.sha256,
      ref: `archive://${offload.sha256}`,
      preview: offload.preview,
    });
    expect(first.bytes).toBeLessThan(20_000);
    for (const q of fake.chatRequests()) {
      expect(q.bytes, `request ${q.index}`).toBeLessThan(64_000);
      expect(JSON.stringify(q.body)).not.toContain(NEEDLE);
    }
  });

  it("pages the archived bytes back through read_archive, and completes the turn", () => {
    const r = run!;
    const { events, session } = r.final;
    const pages = events.flatMap((e) =>
      e.content?.type === "functionResponse" && e.content.name === "read_archive" ? [e.content] : [],
    );
    expect(
      pages.map((p) => p.status),
      show(r),
    ).toEqual(["ok", "ok"]);
    const [p1, p2] = pages.map((p) => p.response as ReadPage);
    expect(p1).toEqual({
      text: blob.subarray(0, 4096).toString("utf8"),
      offset: 0,
      nextOffset: 4096,
      bytes: offload.bytes,
    });
    expect(p2).toEqual({
      text: blob.subarray(4096, 4096 + 16384).toString("utf8"),
      offset: 4096,
      nextOffset: 4096 + 16384,
      bytes: offload.bytes,
    });
    expect(session.status, show(r)).toBe("idle");
    expect(events.filter((e) => e.actions?.turnClose).map((e) => e.actions?.turnClose?.reason)).toEqual(["completed"]);
    expect(events.filter((e) => e.author === "model" && e.content?.type === "text").at(-1)?.content).toEqual({
      type: "text",
      text: "done",
    });
  });

  it("keeps every event exported before the kill, byte for byte", () => {
    expectPrefixKept(run!);
  });

  it("verifies, and its export verifies independently", async () => {
    await expectVerified(run!);
  });
});

// Everything the scenario started is stopped here, also for a describe filtered out by -t.
beforeAll(() => {
  f10.start();
});
afterAll(async () => {
  await f10.dispose();
}, 120_000);
