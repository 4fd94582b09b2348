/**
 * Crash tests with real processes (issue 3, docs/design.md §5): for each failpoint boundary, a real
 * `wrangler dev --persist-to DIR` is killed with SIGKILL (the whole process group) at the
 * boundary, restarted on the same DIR without the failpoint, and given no request (F8 gets
 * its approval, nothing else). The pending lease alarm alone must finish the turn, with no
 * side effect run twice, no committed event lost or changed, and every recovery decision
 * recorded in the log.
 *
 *   npx vitest run --project e2e test/e2e/crash.test.ts
 *   CRASH_RUNS=5 …          repeat every boundary (for the timing note)
 *   CRASH_CONCURRENCY=2 …   wrangler instances at a time (default: the core count, at most 3)
 *   CRASH_ONLY=F4,F5 …      only these boundaries (labels starting with them)
 *
 * The table of restart→continued-request times is printed at the end and written to
 * test-results/crash-table.json.
 */
import { availableParallelism } from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { type CrashCase, type CrashObservation, limiter, runCrashCase } from "./crash/run-case";
import { buildCrashTable, printAndWriteCrashTable, type TimingRow } from "./crash/table";
import { describeEvent, type Event, verifyExportIndependently } from "./harness/api";
import { messageText } from "./harness/fake-openai";

type Expectation = {
  /** Final hit counts at the fake service. */
  readHits: number;
  writeHits: number;
  /** The call killed at a tool boundary and what recovery must do with it. */
  recovered?: "read-rerun" | "write-interrupted";
  /** Model calls before the kill (F0: none, by the boundary's definition) and after the restart. */
  chatRequests: { preKill: number; afterRestart: number };
};

type Case = CrashCase & { expect: Expectation };

const CASES: Case[] = [
  {
    label: "F0",
    failpoint: "F0",
    script: "read-write",
    outcome: "user event only → turn continued, first model call after restart",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 0, afterRestart: 3 } },
  },
  {
    label: "F1",
    failpoint: "F1",
    script: "read-write",
    outcome: "modelRequest committed, provider not called → call issued after restart",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 0, afterRestart: 3 } },
  },
  {
    label: "F2",
    failpoint: "F2",
    script: "read-write",
    outcome: "cut mid-stream, nothing committed → same request issued again",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 1, afterRestart: 3 } },
  },
  {
    label: "F3",
    failpoint: "F3",
    script: "read-write",
    outcome: "answer committed, call not dispatched → dispatched normally",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 1, afterRestart: 2 } },
  },
  {
    label: "F4 read",
    failpoint: "F4",
    script: "read-write",
    outcome: "GET dispatched, not sent → rerun (GET×1), toolRecovery rerun",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 1, afterRestart: 2 }, recovered: "read-rerun" },
  },
  {
    label: "F4 write",
    failpoint: "F4",
    script: "write-read",
    outcome: "POST dispatched, not sent → interrupted, never sent (POST×0)",
    expect: {
      readHits: 1,
      writeHits: 0,
      chatRequests: { preKill: 1, afterRestart: 2 },
      recovered: "write-interrupted",
    },
  },
  {
    label: "F5 read",
    failpoint: "F5",
    script: "read-write",
    hold: "/read",
    outcome: "GET in flight → rerun (GET×2), toolRecovery rerun",
    expect: { readHits: 2, writeHits: 1, chatRequests: { preKill: 1, afterRestart: 2 }, recovered: "read-rerun" },
  },
  {
    label: "F5 write",
    failpoint: "F5",
    script: "write-read",
    hold: "/write",
    outcome: "POST in flight → interrupted, not retried (POST×1)",
    expect: {
      readHits: 1,
      writeHits: 1,
      chatRequests: { preKill: 1, afterRestart: 2 },
      recovered: "write-interrupted",
    },
  },
  {
    label: "F6 read",
    failpoint: "F6",
    script: "read-write",
    outcome: "GET answered, no T2 → rerun (GET×2), toolRecovery rerun",
    expect: { readHits: 2, writeHits: 1, chatRequests: { preKill: 1, afterRestart: 2 }, recovered: "read-rerun" },
  },
  {
    label: "F6 write",
    failpoint: "F6",
    script: "write-read",
    outcome: "POST done, no T2 → interrupted, not retried (POST×1)",
    expect: {
      readHits: 1,
      writeHits: 1,
      chatRequests: { preKill: 1, afterRestart: 2 },
      recovered: "write-interrupted",
    },
  },
  {
    label: "F7",
    failpoint: "F7",
    script: "write-read",
    outcome: "write's T2 committed → next model call, POST×1, nothing re-run",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 1, afterRestart: 2 } },
  },
  {
    label: "F8",
    failpoint: "F8",
    script: "write-read",
    approveWrites: true,
    outcome: "approval pending → stays pending; approved after restart → POST×1",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 1, afterRestart: 2 } },
  },
  {
    label: "F11",
    failpoint: "F11",
    script: "read-write",
    outcome: "turnClose committed → nothing happens, log unchanged",
    expect: { readHits: 1, writeHits: 1, chatRequests: { preKill: 3, afterRestart: 0 } },
  },
];

const RUNS = Math.max(1, Number(process.env.CRASH_RUNS ?? 1) || 1);
// Each case is a wrangler and two workerd processes: more of them than cores only adds waiting.
const CONCURRENCY = Math.max(1, Number(process.env.CRASH_CONCURRENCY) || Math.min(3, availableParallelism()));
const ONLY = process.env.CRASH_ONLY?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const selected = CASES.filter((c) => !ONLY || ONLY.some((o) => c.label === o || c.label.startsWith(`${o} `)));
const withSlot = limiter(CONCURRENCY);
const rows: TimingRow[] = [];

type Call = Extract<NonNullable<Event["content"]>, { type: "functionCall" }>;
type Response = Extract<NonNullable<Event["content"]>, { type: "functionResponse" }>;
const isCall = (e: Event): e is Event & { content: Call } => e.content?.type === "functionCall";
const isResponse = (e: Event): e is Event & { content: Response } => e.content?.type === "functionResponse";
const fetchMethod = (c: Call) => String((c.args as { method?: string }).method ?? "GET").toUpperCase();

function show(o: CrashObservation): string {
  return [
    `session ${o.sessionId}`,
    "steps:",
    ...o.steps,
    `pre-kill: ${JSON.stringify({ ...o.preKill, session: undefined })}`,
    `service: ${JSON.stringify(o.service)}`,
    `chat requests: ${o.fake
      .chatRequests()
      .map((r) => `#${r.index}@${r.at}`)
      .join(" ")}`,
    "events:",
    ...o.final.events.map(describeEvent),
    "--- restarted wrangler (tail) ---",
    o.restartedLogs.slice(-3000),
  ].join("\n");
}

/** NDJSON lines keyed by `seq`, exactly as served. */
function linesBySeq(ndjson: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const line of ndjson.split("\n")) if (line.trim()) out.set((JSON.parse(line) as Event).seq, line);
  return out;
}

function checkRecovered(o: CrashObservation, x: Expectation) {
  const why = show(o);
  const { session, events, verify, exportNdjson } = o.final;
  const preLines = linesBySeq(o.preKillExport);
  const preHigh = Math.max(...preLines.keys());
  const turnId = events.find((e) => e.author === "user" && e.content?.type === "text")?.turnId;
  expect(turnId, why).toEqual(expect.any(String));

  // The turn finished, completed, once.
  expect(session.openTurn, why).toBe(false);
  expect(session.status, why).toBe("idle");
  const closes = events.filter((e) => e.actions?.turnClose);
  expect(closes, why).toHaveLength(1);
  expect(closes[0]!.actions!.turnClose!.reason, why).toBe("completed");
  const lastText = events.filter((e) => e.author === "model" && e.content?.type === "text").at(-1);
  expect(lastText?.content, why).toMatchObject({ type: "text", text: expect.stringMatching(/^done:/) });

  // Nothing committed before the kill was lost or changed, and the chain verifies both ways.
  const finalLines = linesBySeq(exportNdjson);
  for (const [seq, line] of preLines)
    expect(finalLines.get(seq), `seq ${seq} changed after the restart\n${why}`).toBe(line);
  expect(verify, why).toEqual({ ok: true, highWater: session.highWater, headDigest: session.headDigest, problems: [] });
  const independent = verifyExportIndependently(exportNdjson);
  expect(independent.problems, why).toEqual([]);
  expect(independent.ok).toBe(true);
  expect(independent.pending).toEqual([]);
  expect(independent.events).toEqual(events);

  // Every call answered exactly once; each ok/error/interrupted answer has an earlier dispatch.
  const calls = events.filter(isCall);
  expect(
    calls.map((c) => fetchMethod(c.content)),
    why,
  ).toEqual(o.spec.script === "read-write" ? ["GET", "POST"] : ["POST", "GET"]);
  for (const c of calls) {
    const responses = events.filter((e) => isResponse(e) && e.content.callId === c.content.callId);
    expect(responses, `${c.content.callId}\n${why}`).toHaveLength(1);
    const dispatches = events.filter((e) => e.actions?.toolDispatch?.callId === c.content.callId);
    expect(dispatches, `${c.content.callId}\n${why}`).toHaveLength(1);
    expect(dispatches[0]!.seq).toBeLessThan(responses[0]!.seq);
  }

  // No side effect twice; reads re-run only where a read was under way.
  expect({ read: o.service.readHits, write: o.service.writeHits }, why).toEqual({
    read: x.readHits,
    write: x.writeHits,
  });
  expect(o.fake.chatRequests().length - o.preKill.chatRequests, `model calls after the restart\n${why}`).toBe(
    x.chatRequests.afterRestart,
  );
  // One modelRequest per step: a call that was under way is issued again under its own record.
  expect(
    events.filter((e) => e.actions?.modelRequest),
    why,
  ).toHaveLength(3);

  // Recovery recorded itself only where it re-ran, interrupted or re-issued something (docs/API.md
  // §7.11, §7.12): then one hidden notice under a new run, which the session shows; a run that
  // was only continued (F0, F3, F7) or waiting (F8) keeps its runId and gets no notice.
  const notices = events.filter((e) => e.actions?.stateDelta?.recoveryNotice);
  const preRun = (JSON.parse([...preLines.values()].at(-1)!) as Event).runId;
  const killedCall = calls[0]!.content;
  const reissued = o.spec.failpoint === "F1" || o.spec.failpoint === "F2";
  if (!x.recovered && !reissued) {
    expect(notices, why).toEqual([]);
    expect(session.recoveryNotice, why).toBeNull();
    expect(
      events.filter((e) => e.actions?.stateDelta?.runStarted),
      why,
    ).toEqual([]);
    for (const e of events.filter((ev) => ev.runId)) expect(e.runId, describeEvent(e)).toBe(preRun);
  } else {
    expect(notices, why).toHaveLength(1);
    const notice = notices[0]!;
    expect(notice.author).toBe("runtime");
    expect(notice.modelVisibility).toBe("hidden");
    expect(notice.seq, why).toBeGreaterThan(preHigh);
    const firstRequest = events.find((e) => e.actions?.modelRequest)!;
    const expectedNotice = {
      atSeq: notice.seq,
      rerun: x.recovered === "read-rerun" ? [killedCall.callId] : [],
      needsReview: x.recovered === "write-interrupted" ? [killedCall.callId] : [],
      reissued: reissued ? [firstRequest.invocationId] : [],
    };
    expect(notice.actions!.stateDelta!.recoveryNotice, why).toEqual(expectedNotice);
    expect(session.recoveryNotice, why).toEqual(expectedNotice);
    expect(notice.runId, why).toEqual(expect.any(String));
    expect(notice.runId, why).not.toBe(preRun);
    const started = events.filter((e) => e.actions?.stateDelta?.runStarted);
    expect(
      started.map((e) => e.actions!.stateDelta!.runStarted),
      why,
    ).toEqual([{ runId: notice.runId, cause: "recovery" }]);
    for (const e of events.filter((ev) => ev.seq > notice.seq)) expect(e.runId, describeEvent(e)).toBe(notice.runId);
    if (reissued) {
      const attempts = events.filter((e) => e.actions?.stateDelta?.modelAttempt);
      expect(
        attempts.map((e) => (e.actions!.stateDelta!.modelAttempt as { code: string }).code),
        why,
      ).toEqual(["restart"]);
    }
  }
  for (const e of events.filter((ev) => ev.seq > 1)) expect(e.turnId, describeEvent(e)).toBe(turnId);

  // What became of the call the crash hit.
  const noticeSeq = notices[0]?.seq ?? 0;
  const killedResponse = events.find((e) => isResponse(e) && e.content.callId === killedCall.callId)! as Event & {
    content: Response;
  };
  const recoveries = events.filter((e) => e.actions?.toolRecovery);
  if (x.recovered === "write-interrupted") {
    expect(killedResponse.content.status, why).toBe("interrupted");
    expect(killedResponse.actions?.toolRecovery, why).toEqual({ callId: killedCall.callId, strategy: "interrupted" });
    const message = JSON.stringify(killedResponse.content.response);
    expect(message).toMatch(/may or may not have happened/);
    expect(message).toMatch(/inspect/);
    expect(message).toMatch(/retry/);
    // The model's next request carries the interrupted result for that call, under the
    // provider's own id on the wire (docs/API.md §7.6: the log's callId is the runtime's).
    const next = o.fake.chatRequests()[o.continuedIndex]!.body.messages;
    const wireId = (killedCall as { providerCallId?: string }).providerCallId ?? killedCall.callId;
    expect(wireId, why).not.toBe(killedCall.callId);
    const toolMsg = next.find((m) => m.role === "tool" && m.tool_call_id === wireId);
    expect(toolMsg, JSON.stringify(next, null, 1).slice(-3000)).toBeDefined();
    expect(messageText(toolMsg)).toMatch(/may or may not have happened/);
    expect(messageText(toolMsg)).toMatch(/inspect/);
  } else if (x.recovered === "read-rerun") {
    expect(killedResponse.content.status, why).toBe("ok");
    expect(killedResponse.actions?.toolRecovery, why).toEqual({ callId: killedCall.callId, strategy: "rerun" });
    expect(killedResponse.seq).toBeGreaterThan(noticeSeq);
    // The answer is the service's answer to the re-run request (its hit counter says which).
    const body = JSON.parse((killedResponse.content.response as { body: string }).body) as { n: number };
    expect(body.n, why).toBe(x.readHits);
  }
  expect(
    recoveries.map((e) => e.actions!.toolRecovery),
    why,
  ).toEqual(
    x.recovered
      ? [{ callId: killedCall.callId, strategy: x.recovered === "read-rerun" ? "rerun" : "interrupted" }]
      : [],
  );
}

/** Boundary-specific facts about what was (not) durable at the kill. */
function checkBoundary(o: CrashObservation) {
  const why = show(o);
  const pre = [...linesBySeq(o.preKillExport).values()].map((l) => JSON.parse(l) as Event);
  const last = pre.at(-1)!;
  const preModel = pre.filter((e) => e.author === "model");
  switch (o.spec.failpoint) {
    case "F0":
      // Whether the loop also got past the boundary before the kill is checked on its own, below.
      expect(
        pre.filter((e) => e.author === "user" && e.content?.type === "text"),
        why,
      ).toHaveLength(1);
      expect(preModel, why).toEqual([]);
      break;
    case "F1":
      expect(last.actions?.modelRequest, why).toBeDefined();
      expect(o.preKill.chatRequests, why).toBe(0);
      break;
    case "F2": {
      expect(last.actions?.modelRequest, why).toBeDefined();
      expect(preModel, why).toEqual([]);
      expect(o.preKill.chatRequests).toBe(1);
      const cut = o.streams[0]!;
      expect(cut.cut, `F2: the stream was not cut\n${JSON.stringify(o.streams)}`).toBe(true);
      expect(cut.framesSent).toBeGreaterThan(0);
      // The same request is issued again, byte for byte.
      const [first, again] = o.fake.chatRequests();
      expect(JSON.stringify(again!.body.messages)).toBe(JSON.stringify(first!.body.messages));
      expect(JSON.stringify(again!.body.tools)).toBe(JSON.stringify(first!.body.tools));
      break;
    }
    case "F3":
      expect(isCall(last), why).toBe(true);
      expect(
        pre.some((e) => e.actions?.toolDispatch),
        why,
      ).toBe(false);
      break;
    case "F4":
    case "F5":
    case "F6": {
      expect(last.actions?.toolDispatch, why).toBeDefined();
      expect(pre.some(isResponse), why).toBe(false);
      const path = o.spec.script === "read-write" ? "read" : "write";
      const preHits = path === "read" ? o.preKill.readHits : o.preKill.writeHits;
      // F4: the request never left; F5: it reached the service and was held; F6: it was answered.
      expect(preHits, why).toBe(o.spec.failpoint === "F4" ? 0 : 1);
      break;
    }
    case "F7":
      expect(isResponse(last) && last.content.status === "ok", why).toBe(true);
      expect(o.preKill.writeHits).toBe(1);
      break;
    case "F8": {
      expect(last.actions?.permissionRequest, why).toBeDefined();
      const before = o.beforeApproval!;
      expect(before.session.status, why).toBe("waiting_approval");
      expect(before.session.openTurn).toBe(true);
      expect(before.session.pendingApprovals.map((p) => p.requestId)).toEqual([
        last.actions!.permissionRequest!.requestId,
      ]);
      expect(before.chatRequests, "F8: the model was called before the approval").toBe(o.preKill.chatRequests);
      expect(before.writeHits, "F8: the write ran before the approval").toBe(0);
      const decisions = o.final.events.filter((e) => e.actions?.permissionDecision);
      expect(decisions.map((e) => e.actions!.permissionDecision!.decision)).toEqual(["approve"]);
      break;
    }
  }
}

/** The object must stay at its boundary until the kill: a later look finds exactly what the failpoint report did. */
function checkFrozen(o: CrashObservation) {
  const why = show(o);
  expect(o.preKillExport, `the log changed after the failpoint reported\n${why}`).toBe(o.atReport.exportNdjson);
  expect(o.preKill.chatRequests, why).toBe(o.atReport.chatRequests);
  expect({ read: o.preKill.readHits, write: o.preKill.writeHits }, why).toEqual({
    read: o.atReport.readHits,
    write: o.atReport.writeHits,
  });
}

function timingRow(spec: Case, o: CrashObservation): TimingRow {
  const at = o.timing.continuedRequestAt;
  return {
    label: spec.label,
    outcome: spec.outcome,
    run: o.run,
    passed: false,
    readyToRequestMs: at === null ? null : at - o.timing.restartReadyAt,
    healthyToRequestMs: at === null ? null : at - o.timing.restartHealthyAt,
    spawnToRequestMs: at === null ? null : at - o.timing.restartSpawnAt,
    approvalToRequestMs: o.timing.approvedAt === undefined || at === null ? null : at - o.timing.approvedAt,
    restartStartupMs: o.timing.restartReadyAt - o.timing.restartSpawnAt,
  };
}

// One observation per case and run, shared by the tests that judge it.
const observations = new Map<string, Promise<CrashObservation>>();
function observe(spec: Case, run: number): Promise<CrashObservation> {
  const key = `${spec.label}#${run}`;
  let p = observations.get(key);
  if (!p) {
    p = withSlot(() => runCrashCase(spec, run));
    observations.set(key, p);
  }
  return p;
}

describe.concurrent("crash at every boundary: kill -9, restart on the same dir, no request", () => {
  afterAll(() => {
    if (rows.length === 0) return;
    printAndWriteCrashTable(
      buildCrashTable(
        rows,
        CASES.map((c) => c.label),
        RUNS,
      ),
    );
  });

  for (const spec of selected) {
    for (let run = 1; run <= RUNS; run++) {
      it(`${spec.label}${RUNS > 1 ? ` (run ${run})` : ""}: ${spec.outcome}`, async () => {
        const o = await observe(spec, run);
        const row = timingRow(spec, o);
        rows.push(row);
        if (spec.failpoint !== "F0") {
          checkFrozen(o);
          expect(o.preKill.chatRequests, show(o)).toBe(spec.expect.chatRequests.preKill);
        }
        if (spec.failpoint === "F11") {
          // The turn had closed: the restart does nothing at all.
          expect(o.preKill.session.openTurn).toBe(false);
          expect(o.final.exportNdjson, show(o)).toBe(o.preKillExport);
          expect(o.fake.chatRequests().length - o.preKill.chatRequests, show(o)).toBe(0);
          expect(o.final.session).toMatchObject({ openTurn: false, status: "idle", recoveryNotice: null });
          expect(o.final.verify.ok).toBe(true);
          expect(verifyExportIndependently(o.final.exportNdjson).ok).toBe(true);
          expect({ read: o.service.readHits, write: o.service.writeHits }).toEqual({ read: 1, write: 1 });
        } else {
          checkBoundary(o);
          checkRecovered(o, spec.expect);
        }
        row.passed = true;
      }, 900_000);
    }
  }

  const f0 = selected.find((c) => c.failpoint === "F0");
  if (f0) {
    // A reached failpoint freezes the whole object, so the alarm armed with the user event cannot run on.
    it("F0 holds the object at its boundary: no model request before the kill", async () => {
      const o = await observe(f0, 1);
      const pre = [...linesBySeq(o.preKillExport).values()].map((l) => JSON.parse(l) as Event);
      expect(pre.filter((e) => e.actions?.modelRequest).map(describeEvent), show(o)).toEqual([]);
      expect(o.preKill.chatRequests).toBe(0);
      checkFrozen(o);
    }, 900_000);
  }
});
