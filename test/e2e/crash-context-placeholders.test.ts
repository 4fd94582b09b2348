/** Issue 4, F9 with placeholders: see crash-context.test.ts for the scenarios and how to run them. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  checkpointOf,
  expectPrefixKept,
  expectVerified,
  type FnResponse,
  gate,
  MODEL_VARS,
  readBlob,
  requestTokens,
  SCENARIO_TIMEOUT_MS,
  show,
  stampOf,
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
import type { Event } from "./harness/api";
import {
  type ChatRequest,
  type FakeOpenAI,
  isCompactionRequest,
  messageText,
  type Reply,
  startFakeOpenAI,
} from "./harness/fake-openai";
import { type FakeService, startFakeService } from "./harness/fake-service";

// ---------------------------------------------------------------------------------------------
// F9 with placeholders: the compaction archives older results over 4 KiB (docs/design.md §6) before it
// summarises, so at F9 blobs exist that no committed event names yet. After the restart the
// redone checkpoint's placeholders must each name a readable blob, and the model sees them.

const DOC_WINDOW = 12000;
/** min(10800, 12000 − 3000 − 240). */
const DOC_THRESHOLD = 8760;
const ROUNDS = 8;
/** Step s: round floor(s/4)+1; its first step fetches a ~6.7 KB document, the next three a small status. */
const stepPath = (s: number) => {
  const round = Math.floor(s / 4) + 1;
  return s % 4 === 0 ? `/doc-${round}` : `/status-${round}-${s % 4}`;
};
const STEPS = ROUNDS * 4;
const docBody = (round: number) =>
  Array.from(
    { length: 100 },
    (_, i) =>
      `doc ${round} entry ${String(i + 1).padStart(3, "0")}: DOCTEXT-${round}-${i} reading ${(round * 131 + i * 17) % 1009} at station ${i % 13} ok`,
  ).join("\n");
const DOC_USER = `Fetch the ${ROUNDS} documents and their three status pages each, in order, then say done.`;

/** The furthest step a request shows as done: its raw calls, or the checkpoint's DONE-THROUGH. */
function stepsDone(body: ChatRequest): number {
  const text = [
    ...body.messages.map(messageText),
    ...body.messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function.arguments)),
  ].join("\n");
  let best = -1;
  for (const m of text.matchAll(/DONE-THROUGH step-(\d+)/g)) best = Math.max(best, Number(m[1]));
  for (const m of text.matchAll(/\/(doc|status)-(\d+)(?:-(\d))?/g)) {
    const s = (Number(m[2]) - 1) * 4 + (m[1] === "doc" ? 0 : Number(m[3]));
    best = Math.max(best, s);
  }
  return best;
}

function docsAgent(serviceUrl: () => string, compactions: { index: number; summary: string }[]) {
  return (body: ChatRequest, index: number): Reply => {
    const done = stepsDone(body);
    if (isCompactionRequest(body)) {
      const summary = [
        "## Goal and deliverable",
        `Fetch ${ROUNDS} documents with three status pages each, then say done.`,
        "## Progress and next steps",
        `DONE-THROUGH step-${done}. Next: step ${done + 1}. [made by request ${index}]`,
        "## Constraints, decisions and facts",
        "Documents are about 6.7 KB; archived ones are readable with read_archive.",
        "## Open items",
        done + 1 >= STEPS ? "None." : `Steps ${done + 1} to ${STEPS - 1}.`,
        "## Key files and event references",
        "The fetched documents are in the log and the archive.",
      ].join("\n");
      compactions.push({ index, summary });
      return { text: summary };
    }
    if (done + 1 >= STEPS) return { text: "done" };
    return {
      text: `Step ${done + 1}.`,
      toolCalls: [{ name: "http_fetch", args: { url: `${serviceUrl()}${stepPath(done + 1)}`, method: "GET" } }],
    };
  };
}

const f9Placeholders = scenario(gate, async (own) => {
  const compactions: { index: number; summary: string }[] = [];
  const service = await startFakeService();
  own.push(service);
  for (let r = 1; r <= ROUNDS; r++)
    service.respond(`/doc-${r}`, { status: 200, headers: { "content-type": "text/plain" }, body: docBody(r) });
  const fake = await startFakeOpenAI(docsAgent(() => service.url, compactions));
  own.push(fake);
  const run = await runCrashAtFailpoint({
    label: "F9 placeholders",
    failpoint: "F9",
    fake,
    vars: { ...MODEL_VARS(fake), HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*" },
    session: { title: "crash F9 placeholders", model: { contextWindow: DOC_WINDOW }, tools: ["http_fetch"] },
    message: DOC_USER,
  });
  own.push(run);
  console.info(`[F9 placeholders] timing ${JSON.stringify(run.timing)}`);
  return { fake, service, run, compactions };
});

describe("F9 with placeholders: kill -9 after a compaction archived older results, before its checkpoint committed", () => {
  let fake: FakeOpenAI;
  let service: FakeService;
  let run: CrashRun | undefined;
  let compactions: { index: number; summary: string }[] = [];

  beforeAll(async () => {
    ({ fake, service, run, compactions } = await f9Placeholders.start());
  }, SCENARIO_TIMEOUT_MS);

  it("completes the turn with every fetch made once, keeping the pre-kill prefix, and verifies", async () => {
    const r = run!;
    const { session, events } = r.final;
    expect(session.status, show(r)).toBe("idle");
    expect(events.filter((e) => e.actions?.turnClose).map((e) => e.actions?.turnClose?.reason)).toEqual(["completed"]);
    for (let s = 0; s < STEPS; s++) expect(service.hits(stepPath(s), "GET"), stepPath(s)).toBe(1);
    expectPrefixKept(r);
    await expectVerified(r);
    // At the kill no checkpoint had committed; the first one was committed after the restart.
    const before = ndjsonLines(r.preKillExport).map((l) => JSON.parse(l) as Event);
    expect(before.filter((e) => checkpointOf(e))).toEqual([]);
    const first = events.find((e) => checkpointOf(e));
    expect(first?.seq, show(r)).toBeGreaterThan(r.preKillSession.highWater);
  });

  it("names only readable blobs in the redone checkpoint's placeholders, each the result it stands for", async () => {
    const r = run!;
    const { events } = r.final;
    const cps = events.filter((e) => checkpointOf(e));
    const redone = checkpointOf(cps[0]!)!;
    expect(redone.placeholders?.length ?? 0, JSON.stringify(redone).slice(0, 2000)).toBeGreaterThanOrEqual(1);
    expect(Number(stampOf(redone.summary))).toBeGreaterThanOrEqual(r.chatRequestsAtKill);
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    let prev: Checkpoint | null = null;
    for (const e of cps) {
      const cp = checkpointOf(e)!;
      expect(cp.prevId).toBe(prev?.id ?? null);
      expect(cp.sourceDigest).toBe(bySeq.get(cp.throughSeq)?.digest);
      for (const p of cp.placeholders ?? []) {
        const answer = events.find((x) => x.content?.type === "functionResponse" && x.content.callId === p.callId);
        expect(answer, `placeholder for ${p.callId}`).toBeDefined();
        const text = canonical((answer!.content as FnResponse).response);
        expect(Buffer.byteLength(text)).toBeGreaterThan(4096);
        expect(p.bytes).toBe(Buffer.byteLength(text));
        expect(p.sha256).toBe(sha256Hex(text));
        const blob = await readBlob(r, p.sha256, p.bytes);
        expect(blob.toString("utf8")).toBe(text);
        expect(text.startsWith(p.preview)).toBe(true);
      }
      prev = cp;
    }
    const mrs = events.filter((e) => e.actions?.modelRequest);
    let latest: string | null = null;
    for (const e of events) {
      if (checkpointOf(e)) latest = checkpointOf(e)!.id;
      if (e.actions?.modelRequest) expect(e.actions.modelRequest.checkpointId).toBe(latest);
    }
    expect(mrs.length).toBeGreaterThan(STEPS);
  });

  it("shows the model placeholders (not the documents) after the redone checkpoint, within the threshold", () => {
    const r = run!;
    const cps = r.final.events.filter((e) => checkpointOf(e));
    const redone = checkpointOf(cps[0]!)!;
    const reqs = fake.chatRequests();
    // The first request after the restart redoes the compaction; the next one is built on it.
    expect(isCompactionRequest(reqs[r.chatRequestsAtKill]!.body)).toBe(true);
    const next = reqs[r.chatRequestsAtKill + 1]!;
    expect(isCompactionRequest(next.body)).toBe(false);
    const outputs = new Map(
      next.body.messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, toolOutput(m)] as const),
    );
    // On the wire a call goes under the provider's own id (docs/API.md §7.6); the log's callId is the runtime's.
    const wireOf = new Map(
      r.final.events.flatMap((e) =>
        e.content?.type === "functionCall"
          ? [[e.content.callId, (e.content as { providerCallId?: string }).providerCallId ?? e.content.callId] as const]
          : [],
      ),
    );
    const wire = (callId: string) => wireOf.get(callId) ?? callId;
    const shown = (redone.placeholders ?? []).filter((p) => outputs.has(wire(p.callId)));
    expect(shown.length).toBeGreaterThanOrEqual(1);
    const nextJson = JSON.stringify(next.body);
    for (const p of shown) {
      const call = r.final.events.find((e) => e.content?.type === "functionCall" && e.content.callId === p.callId);
      const round = /\/doc-(\d+)/.exec(JSON.stringify(call?.content))?.[1];
      expect(round, `call ${p.callId}`).toBeDefined();
      // The end of the document is not in the request: only its placeholder's preview is.
      expect(nextJson).not.toContain(`DOCTEXT-${round}-99 `);
      expect(outputs.get(wire(p.callId))).toEqual({
        offloaded: true,
        tool: "http_fetch",
        bytes: p.bytes,
        sha256: p.sha256,
        ref: `archive://${p.sha256}`,
        preview: p.preview,
      });
    }
    const sizes = reqs.map((q) => requestTokens(q.body));
    expect(
      sizes.filter((t) => t > DOC_THRESHOLD),
      JSON.stringify(sizes),
    ).toEqual([]);
    console.info(
      `[F9 placeholders] ${reqs.length} model requests (${compactions.length} compactions, ${r.chatRequestsAtKill} before the kill); ` +
        `${cps.length} checkpoints, ${redone.placeholders?.length ?? 0} placeholders in the redone one; largest ${Math.max(...sizes)} tokens, threshold ${DOC_THRESHOLD}`,
    );
  });
});

// Everything the scenario started is stopped here, also for a describe filtered out by -t.
beforeAll(() => {
  f9Placeholders.start();
});
afterAll(async () => {
  await f9Placeholders.dispose();
}, 120_000);
