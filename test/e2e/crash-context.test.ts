/**
 * Issue 4: "A kill -9 during compaction and during offload loses nothing and leaves no
 * dangling placeholder." Real `wrangler dev` processes, killed with SIGKILL (the whole
 * process group) at a context failpoint (DESIGN §5):
 *
 * - F9: a checkpoint has been summarised but its `stateDelta.checkpoint` event is not yet
 *   committed (src/context/next-context.ts `compact`). After the restart the compaction is
 *   redone, and every request still fits the threshold. Two sessions: write_file/read_file
 *   of ~2 KB notes in a 6000-token window; and http_fetch of ~6 KB documents in a 12000-token
 *   window, where the compaction archives older results (blobs written before F9) and the
 *   redone checkpoint's placeholders must each name a readable blob.
 * - F10: an offloaded result's T2 (with `stateDelta.offload`) has committed, its blob is
 *   archived, and no model request has used the placeholder yet (src/runtime/session-runtime.ts
 *   `#commitOutcome`). After the restart the model sees the placeholder and pages the blob
 *   back with `read_archive`.
 *
 * Each restart is on the same persist dir, without the failpoint vars, and the worker gets no
 * request: the lease alarm alone continues the turn.
 *
 *   npx vitest run --project e2e test/e2e/crash-context.test.ts
 *   CRASH_DEBUG=1 …             print each step as it happens
 *   CRASH_CTX_CONCURRENCY=1 …   one scenario at a time (default 2)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CrashRun,
  canonical,
  limiter,
  ndjsonLines,
  runCrashAtFailpoint,
  scenario,
  sha256Hex,
} from "./crash-context/run-crash";
import { describeEvent, type Event, verifyExportIndependently } from "./harness/api";
import {
  type ChatMessage,
  type ChatRequest,
  type FakeOpenAI,
  isCompactionRequest,
  messageText,
  type Reply,
  scriptedAgent,
  startFakeOpenAI,
} from "./harness/fake-openai";
import { type FakeService, startFakeService } from "./harness/fake-service";

/** Scenarios at a time (each starts `wrangler dev` twice); CRASH_CTX_CONCURRENCY=1 runs them one by one. */
const gate = limiter(Number(process.env.CRASH_CTX_CONCURRENCY ?? 2));
/** A scenario may wait for a free slot before its own ~30–60 s. */
const SCENARIO_TIMEOUT_MS = 300_000;

const MODEL_VARS = (fake: FakeOpenAI) => ({
  MODEL_PROVIDER: "openai",
  MODEL_BASE_URL: fake.url,
  MODEL_API_KEY: "x",
  MODEL_NAME: "fake-model",
});

type Checkpoint = {
  id: string;
  throughSeq: number;
  sourceDigest: string;
  prevId: string | null;
  summary: string;
  placeholders?: { callId: string; sha256: string; bytes: number; preview: string }[];
  method?: string;
};
const checkpointOf = (e: Event) => e.actions?.stateDelta?.checkpoint as Checkpoint | undefined;
type Offload = { sha256: string; bytes: number; preview: string };
const offloadOf = (e: Event) => e.actions?.stateDelta?.offload as Offload | undefined;
type FnResponse = Extract<NonNullable<Event["content"]>, { type: "functionResponse" }>;

/** chars/4 of what a request sends the model (messages and tools as JSON): the budget estimator's own measure. */
const requestTokens = (body: ChatRequest) =>
  Math.ceil(JSON.stringify({ messages: body.messages, tools: body.tools ?? [] }).length / 4);

const show = (run: CrashRun | undefined) =>
  run ? `steps:\n${run.steps.join("\n")}\nevents:\n${run.final.events.map(describeEvent).join("\n")}` : "(no run)";

/** Every event line exported before the kill is still there, byte for byte, at the same place. */
function expectPrefixKept(run: CrashRun) {
  const before = ndjsonLines(run.preKillExport);
  const after = ndjsonLines(run.final.exportNdjson);
  expect(before.length).toBe(run.preKillSession.highWater);
  expect(after.length).toBe(run.final.session.highWater);
  expect(after.length).toBeGreaterThan(before.length);
  for (let i = 0; i < before.length; i++) expect(after[i], `export line ${i + 1}`).toBe(before[i]);
  // And nothing was committed while the object hung at the failpoint.
  expect(run.atReportExport).toBe(run.preKillExport);
}

async function expectVerified(run: CrashRun) {
  const { session, verify, exportNdjson, events } = run.final;
  expect(verify).toEqual({ ok: true, highWater: session.highWater, headDigest: session.headDigest, problems: [] });
  const check = verifyExportIndependently(exportNdjson);
  expect(check.problems).toEqual([]);
  expect(check.ok).toBe(true);
  expect(check.head).toBe(session.headDigest);
  expect(check.events).toEqual(events);
}

/** The blob behind an archive ref, read over HTTP, with its size and digest checked here. */
async function readBlob(run: CrashRun, sha256: string, bytes: number): Promise<Buffer> {
  const res = await run.api.raw("GET", `/v1/sessions/${run.sessionId}/archive/${sha256}`);
  const body = Buffer.from(await res.arrayBuffer());
  expect(res.status, `GET archive/${sha256}: ${body.toString("utf8").slice(0, 300)}`).toBe(200);
  expect(body.byteLength).toBe(bytes);
  expect(sha256Hex(body)).toBe(sha256);
  return body;
}

// ---------------------------------------------------------------------------------------------
// F9: kill -9 while a compaction checkpoint is summarised but not committed.

/** Small enough that compaction is needed after a few steps: threshold = min(5400, 6000 − 1500 − 120) = 4380. */
const WINDOW = 6000;
const THRESHOLD = 4380;
const PARTS = 11;
const partPath = (n: number) => `notes/part-${n}.txt`;
/** ~2 KB of text per part, different in every part. */
const partContent = (n: number) =>
  Array.from(
    { length: 30 },
    (_, i) => `part ${n} line ${String(i + 1).padStart(2, "0")}: measured ${(n * 37 + i * 11) % 97} units at the dock`,
  ).join("\n");
const F9_USER = `Write ${PARTS} notes, ${partPath(1)} to ${partPath(PARTS)}, reading each one back after writing it, then say done.`;

/** The stamp each compaction answer carries, so a checkpoint names the request that produced it. */
const stampOf = (summary: string) => /\[made by request (\d+)\]/.exec(summary)?.[1];

/** Parts whose read-back is complete, as the request shows them (raw calls, or an earlier checkpoint). */
function partsReadBack(text: string): number {
  let best = 0;
  for (const m of text.matchAll(/DONE-THROUGH part-(\d+)/g)) best = Math.max(best, Number(m[1]));
  for (const m of text.matchAll(/read_file \(call [^)]*\): \{"path":"notes\/part-(\d+)\.txt"\}/g))
    best = Math.max(best, Number(m[1]));
  return best;
}

/** The compaction answer: the five sections DESIGN §6 asks for, with where the work stands. */
function summaryFor(body: ChatRequest, index: number): string {
  const done = partsReadBack(body.messages.map(messageText).join("\n"));
  return [
    "## Goal and deliverable",
    `Write ${PARTS} notes (${partPath(1)} … ${partPath(PARTS)}), read each back, then say done.`,
    "## Progress and next steps",
    `DONE-THROUGH part-${done}. Next: write ${partPath(done + 1)} and read it back. [made by request ${index}]`,
    "## Constraints, decisions and facts",
    "Each note is about 2 KB of text, 30 lines.",
    "## Open items",
    done >= PARTS ? "None." : `Parts ${done + 1} to ${PARTS}.`,
    "## Key files and event references",
    done > 0 ? `${partPath(1)} … ${partPath(done)} written and read back (see the log).` : "None yet.",
  ].join("\n");
}

function callOf(msgs: ChatMessage[], callId: string | undefined) {
  for (const m of msgs)
    for (const c of m.tool_calls ?? [])
      if (c.id === callId)
        return { name: c.function.name, args: JSON.parse(c.function.arguments) as { path?: string } };
  return null;
}

/**
 * The agent: write part n, read it back, next part, … then "done". Decided from the request
 * alone (the last tool result's call, the read-backs still raw, the checkpoint's DONE-THROUGH),
 * so a request re-issued after the restart, or one built on a checkpoint, gets the right answer.
 */
function notesAgent(compactions: { index: number; summary: string }[]) {
  return (body: ChatRequest, index: number): Reply => {
    if (isCompactionRequest(body)) {
      const summary = summaryFor(body, index);
      compactions.push({ index, summary });
      return { text: summary };
    }
    const msgs = body.messages;
    const last = msgs.at(-1);
    if (last?.role === "tool") {
      const call = callOf(msgs, last.tool_call_id);
      if (call?.name === "write_file" && call.args.path)
        return {
          text: `Reading ${call.args.path} back.`,
          toolCalls: [{ name: "read_file", args: { path: call.args.path } }],
        };
    }
    const done = Math.max(
      partsReadBack(msgs.map(messageText).join("\n")),
      ...msgs.flatMap((m) =>
        (m.tool_calls ?? []).flatMap((c) => {
          const n = /notes\/part-(\d+)\.txt/.exec(c.function.arguments)?.[1];
          return c.function.name === "read_file" && n ? [Number(n)] : [];
        }),
      ),
    );
    if (done >= PARTS) return { text: "done" };
    const n = done + 1;
    return {
      text: `Writing ${partPath(n)}.`,
      toolCalls: [{ name: "write_file", args: { path: partPath(n), content: partContent(n) } }],
    };
  };
}

const f9 = scenario(gate, async (own) => {
  const compactions: { index: number; summary: string }[] = [];
  const fake = await startFakeOpenAI(notesAgent(compactions));
  own.push(fake);
  const run = await runCrashAtFailpoint({
    label: "F9",
    failpoint: "F9",
    fake,
    vars: MODEL_VARS(fake),
    session: { title: "crash F9", model: { contextWindow: WINDOW }, tools: ["write_file", "read_file"] },
    message: F9_USER,
  });
  own.push(run);
  console.info(`[F9] timing ${JSON.stringify(run.timing)}`);
  return { fake, run, compactions };
});

describe("F9: kill -9 while a compaction checkpoint is being committed", () => {
  let fake: FakeOpenAI;
  let run: CrashRun | undefined;
  let compactions: { index: number; summary: string }[] = [];

  beforeAll(async () => {
    ({ fake, run, compactions } = await f9.start());
  }, SCENARIO_TIMEOUT_MS);

  it("reached F9 after a compaction request was answered, with no checkpoint committed", () => {
    const r = run!;
    const before = ndjsonLines(r.preKillExport).map((l) => JSON.parse(l) as Event);
    expect(r.preKillSession.model).toMatchObject({ contextWindow: WINDOW, maxOutputTokens: 1500 });
    expect(before.filter((e) => checkpointOf(e))).toEqual([]);
    // The last request before the kill was the compaction whose checkpoint F9 stopped.
    const last = fake.chatRequests()[r.chatRequestsAtKill - 1]!;
    expect(isCompactionRequest(last.body), show(r)).toBe(true);
    expect(last.completed).toBe(true);
    expect(r.preKillSession.openTurn).toBe(true);
  });

  it("completes the turn after the restart, with no request sent to the worker", () => {
    const r = run!;
    const { session, events } = r.final;
    expect(session.status, show(r)).toBe("idle");
    expect(session.openTurn).toBe(false);
    const closes = events.filter((e) => e.actions?.turnClose);
    expect(
      closes.map((e) => e.actions?.turnClose?.reason),
      show(r),
    ).toEqual(["completed"]);
    const lastText = events.filter((e) => e.author === "model" && e.content?.type === "text").at(-1);
    expect(lastText?.content).toEqual({ type: "text", text: "done" });
    // Every part was written once and read back once, all ok.
    for (let n = 1; n <= PARTS; n++) {
      const calls = events.filter(
        (e) => e.content?.type === "functionCall" && (e.content.args as { path?: string }).path === partPath(n),
      );
      expect(
        calls.map((e) => (e.content as { name: string }).name),
        `part ${n}\n${show(r)}`,
      ).toEqual(["write_file", "read_file"]);
    }
    const responses = events.flatMap((e) => (e.content?.type === "functionResponse" ? [e.content] : []));
    expect(responses.every((c) => c.status === "ok")).toBe(true);
    expect(responses).toHaveLength(2 * PARTS);
    // The compaction call under way at the kill is in the log (CONTRACT §7.29): it is re-issued
    // after the restart like any model call (§7.8 `restart`, §7.11 `reissued`), and nothing else
    // was re-run or interrupted.
    const preKill = events
      .filter((e) => e.seq <= r.preKillSession.highWater && e.actions?.modelRequest?.purpose === "compaction")
      .at(-1);
    expect(preKill, show(r)).toBeDefined();
    const notices = events.flatMap((e) => {
      const n = e.actions?.stateDelta?.recoveryNotice as Record<string, unknown> | undefined;
      return n ? [n] : [];
    });
    expect(notices, show(r)).toEqual([
      { atSeq: expect.any(Number), rerun: [], needsReview: [], reissued: [preKill!.invocationId] },
    ]);
    const restarts = events.flatMap((e) => {
      const m = e.actions?.stateDelta?.modelAttempt as
        | { invocationId: string; attempt: number; code: string }
        | undefined;
      return m?.code === "restart" ? [m] : [];
    });
    expect(restarts).toMatchObject([{ invocationId: preKill!.invocationId, attempt: 1 }]);
    expect(events.filter((e) => e.actions?.stateDelta?.runStarted)).toHaveLength(1);
  });

  it("keeps every event exported before the kill, byte for byte", () => {
    expectPrefixKept(run!);
  });

  it("verifies, and its export verifies independently", async () => {
    await expectVerified(run!);
  });

  it("redoes the compaction: one linear chain of valid checkpoints, the first committed after the restart", async () => {
    const r = run!;
    const { events } = r.final;
    const bySeq = new Map(events.map((e) => [e.seq, e]));
    const cps = events.filter((e) => checkpointOf(e));
    expect(cps.length, show(r)).toBeGreaterThanOrEqual(1);
    const preKillHigh = r.preKillSession.highWater;
    expect(cps[0]!.seq).toBeGreaterThan(preKillHigh);
    let prev: Checkpoint | null = null;
    for (const e of cps) {
      const cp = checkpointOf(e)!;
      expect(e).toMatchObject({ author: "runtime", modelVisibility: "hidden" });
      expect(cp.prevId, `checkpoint at seq ${e.seq}`).toBe(prev?.id ?? null);
      expect(cp.throughSeq).toBeLessThan(e.seq);
      expect(cp.throughSeq).toBeGreaterThan(prev?.throughSeq ?? 0);
      // Its sourceDigest is the digest of the event at its throughSeq in the export.
      expect(cp.sourceDigest, `checkpoint at seq ${e.seq}`).toBe(bySeq.get(cp.throughSeq)?.digest);
      for (const p of cp.placeholders ?? []) await readBlob(r, p.sha256, p.bytes);
      prev = cp;
    }
    expect(new Set(cps.map((e) => checkpointOf(e)!.id)).size).toBe(cps.length);
    // The redone checkpoint covers the prefix that existed at the kill, and was made after the restart:
    // the summary F9 stopped is in no event.
    const redone = checkpointOf(cps[0]!)!;
    expect(redone.throughSeq).toBeLessThanOrEqual(preKillHigh);
    expect(redone.method).toBe("model");
    const preKillCompactions = compactions.filter((c) => c.index < r.chatRequestsAtKill);
    expect(preKillCompactions.length).toBeGreaterThanOrEqual(1);
    expect(Number(stampOf(redone.summary))).toBeGreaterThanOrEqual(r.chatRequestsAtKill);
    const exported = r.final.exportNdjson;
    for (const c of preKillCompactions) expect(exported).not.toContain(`[made by request ${c.index}]`);
    // The first request after the restart was the redone compaction.
    expect(isCompactionRequest(fake.chatRequests()[r.chatRequestsAtKill]!.body)).toBe(true);
    const ctx = (await r.api.context(r.sessionId)) as { checkpoint: { id: string } | null; threshold: number };
    expect(ctx.threshold).toBe(THRESHOLD);
    expect(ctx.checkpoint?.id).toBe(checkpointOf(cps.at(-1)!)!.id);
  });

  it("builds every model request on the latest checkpoint committed before it", () => {
    const r = run!;
    const { events } = r.final;
    const requests = events.filter((e) => e.actions?.modelRequest);
    const ids = new Set(events.filter((e) => checkpointOf(e)).map((e) => checkpointOf(e)!.id));
    expect(requests.length).toBeGreaterThan(2 * PARTS);
    let latest: string | null = null;
    for (const e of events) {
      const cp = checkpointOf(e);
      if (cp) latest = cp.id;
      const mr = e.actions?.modelRequest;
      if (!mr) continue;
      if (mr.checkpointId !== null) expect(ids.has(mr.checkpointId)).toBe(true);
      expect(mr.checkpointId, `${describeEvent(e)}\n${show(r)}`).toBe(latest);
      expect(mr.throughSeq).toBeLessThan(e.seq);
      expect(mr.estimatedTokens).toBeLessThanOrEqual(THRESHOLD);
    }
  });

  it("sent the model only requests that fit the threshold, before and after the restart", () => {
    const r = run!;
    const reqs = fake.chatRequests();
    const sizes = reqs.map((q) => ({
      index: q.index,
      tokens: requestTokens(q.body),
      compaction: isCompactionRequest(q.body),
    }));
    const over = sizes.filter((s) => s.tokens > THRESHOLD);
    expect(over, JSON.stringify(sizes)).toEqual([]);
    // Compaction went on after the restart: the redone one and at least one built on it.
    expect(compactions.filter((c) => c.index >= r.chatRequestsAtKill).length).toBeGreaterThanOrEqual(2);
    expect(r.final.events.filter((e) => checkpointOf(e)).length).toBeGreaterThanOrEqual(2);
    expect(reqs.slice(r.chatRequestsAtKill).every((q) => q.completed)).toBe(true);
    console.info(
      `[F9] ${reqs.length} model requests (${compactions.length} compactions, ${r.chatRequestsAtKill} before the kill); ` +
        `largest ${Math.max(...sizes.map((s) => s.tokens))} tokens by chars/4, threshold ${THRESHOLD}`,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// F9 with placeholders: the compaction archives older results over 4 KiB (DESIGN §6) before it
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
    // On the wire a call goes under the provider's own id (CONTRACT §7.6); the log's callId is the runtime's.
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

/** The JSON a tool message carries (Chat Completions tool content is the JSON text of the output). */
function toolOutput(m: ChatMessage | undefined): unknown {
  try {
    return JSON.parse(messageText(m));
  } catch {
    return undefined;
  }
}

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
    // T2 was committed: nothing to re-run, interrupt or re-issue, so no notice (CONTRACT §7.11).
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

// All scenarios start together (through `gate`), so their wrangler starts overlap; each describe
// awaits its own. Everything they started is stopped here, also for a describe filtered out by -t.
beforeAll(() => {
  for (const s of [f9, f9Placeholders, f10]) s.start();
});
afterAll(async () => {
  await Promise.all([f9, f9Placeholders, f10].map((s) => s.dispose()));
}, 120_000);
