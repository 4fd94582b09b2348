/**
 * Issue 4: "A kill -9 during compaction and during offload loses nothing and leaves no
 * dangling placeholder." Real `wrangler dev` processes, killed with SIGKILL (the whole
 * process group) at a context failpoint (docs/design.md §5):
 *
 * - F9: a checkpoint has been summarised but its `stateDelta.checkpoint` event is not yet
 *   committed (src/context/next-context.ts `compact`). After the restart the compaction is
 *   redone, and every request still fits the threshold. Two sessions: write_file/read_file
 *   of ~2 KB notes in a 6000-token window (this file); and http_fetch of ~6 KB documents in a
 *   12000-token window, where the compaction archives older results (blobs written before F9)
 *   and the redone checkpoint's placeholders must each name a readable blob
 *   (crash-context-placeholders.test.ts).
 * - F10: an offloaded result's T2 (with `stateDelta.offload`) has committed, its blob is
 *   archived, and no model request has used the placeholder yet (src/runtime/session-runtime.ts
 *   `#commitOutcome`; crash-context-offload.test.ts). After the restart the model sees the placeholder and pages the blob
 *   back with `read_archive`.
 *
 * Each restart is on the same persist dir, without the failpoint vars, and the worker gets no
 * request: the lease alarm alone continues the turn.
 *
 *   npx vitest run --project e2e test/e2e/crash-context.test.ts
 *   CRASH_DEBUG=1 …             print each step as it happens
 *   CRASH_CTX_CONCURRENCY=1 …   one scenario at a time per file (each file has one)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Checkpoint,
  checkpointOf,
  expectPrefixKept,
  expectVerified,
  gate,
  MODEL_VARS,
  readBlob,
  requestTokens,
  SCENARIO_TIMEOUT_MS,
  show,
  stampOf,
} from "./crash-context/checks";
import { type CrashRun, ndjsonLines, runCrashAtFailpoint, scenario } from "./crash-context/run-crash";
import { describeEvent, type Event } from "./harness/api";
import {
  type ChatMessage,
  type ChatRequest,
  type FakeOpenAI,
  isCompactionRequest,
  messageText,
  type Reply,
  startFakeOpenAI,
} from "./harness/fake-openai";

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

/** Parts whose read-back is complete, as the request shows them (raw calls, or an earlier checkpoint). */
function partsReadBack(text: string): number {
  let best = 0;
  for (const m of text.matchAll(/DONE-THROUGH part-(\d+)/g)) best = Math.max(best, Number(m[1]));
  for (const m of text.matchAll(/read_file \(call [^)]*\): \{"path":"notes\/part-(\d+)\.txt"\}/g))
    best = Math.max(best, Number(m[1]));
  return best;
}

/** The compaction answer: the five sections docs/design.md §6 asks for, with where the work stands. */
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
    // The compaction call under way at the kill is in the log (docs/API.md §7.29): it is re-issued
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

// Everything the scenario started is stopped here, also for a describe filtered out by -t.
beforeAll(() => {
  f9.start();
});
afterAll(async () => {
  await f9.dispose();
}, 120_000);
