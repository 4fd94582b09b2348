/**
 * One crash case, end to end: a fresh persist dir, a fake model (re-chunked to tens of
 * frames), a fake external service and a failpoint sink; `wrangler dev` with the failpoint
 * armed; a message that makes the agent GET and POST the service; kill -9 of the whole
 * process group when the failpoint reports; a restart on the same dir without the
 * failpoint and without any request (only the approval, for F8); then everything a test
 * needs to judge what recovery did. Assertions live in the test file.
 */
import { rmSync } from "node:fs";
import { type Api, createApi, type Event, type Session, type VerifyResult } from "../harness/api";
import { type FakeOpenAI, type Reply, scriptedAgent, startFakeOpenAI } from "../harness/fake-openai";
import { type FakeService, startFakeService } from "../harness/fake-service";
import {
  type FailpointSink,
  makePersistDir,
  startFailpointSink,
  startWrangler,
  type Wrangler,
  type WranglerOptions,
} from "../harness/wrangler";
import { type ChunkedStream, startChunkedStream } from "./chunked-stream";

const TOKEN = "crash-token";
/** The runtime's lease (src/runtime/session-runtime.ts LEASE_MS): a pending alarm fires at most this long after it was set. */
export const LEASE_MS = 3_000;
/** How long the test watches the frozen object before the kill (nothing may change meanwhile). */
export const SETTLE_MS = 1_000;

export type FailpointId = "F0" | "F1" | "F2" | "F3" | "F4" | "F5" | "F6" | "F7" | "F8" | "F11";

/**
 * `read-write`: GET /read, then POST /write, then "done".
 * `write-read`: POST /write, then GET /read to check, then "done" (so that the first tool
 * boundary, where a failpoint fires, is the write's).
 */
export type ScriptKind = "read-write" | "write-read";

export type CrashCase = {
  /** Row label, e.g. "F4 read". */
  label: string;
  failpoint: FailpointId;
  script: ScriptKind;
  /** Hold this service path so the tool's request is in flight when the worker dies (F5). */
  hold?: "/read" | "/write";
  /** Writes (POST http_fetch) need approval (F8). */
  approveWrites?: boolean;
  /** What happened at the boundary, for the table. */
  outcome: string;
};

export type CrashObservation = {
  spec: CrashCase;
  run: number;
  sessionId: string;
  /** NDJSON export taken while the worker hung at the failpoint, just before the kill. */
  preKillExport: string;
  /** What was there when the failpoint reported, `SETTLE_MS` before `preKillExport`. */
  atReport: { exportNdjson: string; chatRequests: number; readHits: number; writeHits: number };
  preKill: { chatRequests: number; readHits: number; writeHits: number; session: Session };
  /** After the restart, before the approval (F8 only). */
  beforeApproval?: { chatRequests: number; writeHits: number; session: Session };
  timing: {
    /** Spawn of the restarted `wrangler dev` (epoch ms). */
    restartSpawnAt: number;
    /** The restarted worker first answers `/healthz` (its "Ready", ±20 ms). */
    restartReadyAt: number;
    /** `startWrangler` resolved: its `/healthz` answered 200. */
    restartHealthyAt: number;
    /** F8: when the approval was sent. */
    approvedAt?: number;
    /** First model request after the restart (null for F11: none is expected). */
    continuedRequestAt: number | null;
    turnClosedSeenAt: number;
  };
  final: { session: Session; events: Event[]; verify: VerifyResult; exportNdjson: string };
  fake: FakeOpenAI;
  streams: ChunkedStream["streams"];
  service: { readHits: number; writeHits: number; readCompleted: number; writeCompleted: number };
  /** Index of the first chat request after the restart. */
  continuedIndex: number;
  /** Timestamped steps of the case, for failure messages. */
  steps: string[];
  firstLogs: string;
  restartedLogs: string;
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Rejects with `what` (and the case's step log) if `p` takes longer than `ms`: a hang becomes a readable failure. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A counting semaphore: at most `n` wrangler instances at a time on a 2-core machine. */
export function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((r) => queue.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}

const LONG_TEXT = {
  read: "Before changing anything I will read the current value from the external service, so I know what is there.",
  write:
    "Now I will store the new value in the external service with a single POST request, and then check the result.",
  check: "The write call finished; I will read the value back from the external service to confirm what it holds now.",
  done: "done: the external value was read and written, and every step of this turn is recorded in the session log.",
};

/** The agent's steps, keyed by how many tool results the turn has (so a re-issued request gets the same answer). */
function agentSteps(kind: ScriptKind, service: string): Reply[] {
  const read: Reply = {
    text: LONG_TEXT.read,
    toolCalls: [{ name: "http_fetch", args: { url: `${service}/read`, method: "GET" } }],
  };
  const write = (text: string): Reply => ({
    text,
    toolCalls: [
      {
        name: "http_fetch",
        args: {
          url: `${service}/write`,
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ value: "v2", reason: "crash test write, must reach the service at most once" }),
        },
      },
    ],
  });
  if (kind === "read-write") return [read, write(LONG_TEXT.write), { text: LONG_TEXT.done }];
  return [write(LONG_TEXT.write), { ...read, text: LONG_TEXT.check }, { text: LONG_TEXT.done }];
}

/**
 * `startWrangler`, timed: `readyAt` is when wrangler printed "Ready on" (the port is only
 * known from that line: every port is chosen at bind time), `healthyAt` when `startWrangler`
 * itself resolved (`/healthz` answered 200).
 */
async function startTimed(
  options: WranglerOptions,
): Promise<{ worker: Wrangler; spawnAt: number; readyAt: number; healthyAt: number }> {
  const spawnAt = Date.now();
  const worker = await startWrangler({ ...options, port: undefined, inspectorPort: undefined });
  return { worker, spawnAt, readyAt: worker.readyAt, healthyAt: Date.now() };
}

/** Runs one case through kill and recovery. Everything it started is stopped before it returns or throws. */
export async function runCrashCase(spec: CrashCase, run: number): Promise<CrashObservation> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const steps: string[] = [];
  const t0 = Date.now();
  const step = (what: string) => {
    steps.push(`+${String(Date.now() - t0).padStart(6)} ms ${what}`);
    if (process.env.CRASH_DEBUG) console.error(`[crash ${spec.label} #${run}] ${steps.at(-1)}`);
  };
  let worker: Wrangler | undefined;
  let firstLogs = "";
  try {
    const service: FakeService = await startFakeService();
    cleanups.push(() => service.close());
    const agent = scriptedAgent(agentSteps(spec.script, service.url));
    let killed = false;
    const fake = await startFakeOpenAI(async (body, index) => {
      const reply = await agent(body, index);
      // F2: the answer stops mid-stream (a few frames, then nothing), so the kill always cuts it.
      // F0: no model call may finish before the kill, even if the loop runs past the boundary.
      return (spec.failpoint === "F2" || spec.failpoint === "F0") && !killed ? { ...reply, hangAfterChunks: 3 } : reply;
    });
    cleanups.push(() => fake.close());
    const proxy = await startChunkedStream(fake.url);
    cleanups.push(() => proxy.close());
    const sink: FailpointSink = await startFailpointSink();
    cleanups.push(() => sink.close());
    const persistTo = makePersistDir("hw-crash-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));

    const vars = {
      API_TOKENS: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: proxy.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
      HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
    };
    step("starting wrangler with the failpoint");
    const first = await startTimed({
      persistTo,
      vars: { ...vars, HW_FAILPOINT: spec.failpoint, HW_FAILPOINT_URL: sink.url },
    });
    worker = first.worker;
    step(`ready (${first.readyAt - first.spawnAt} ms after spawn)`);
    let api: Api = createApi(worker.url, TOKEN);
    const session = await within(
      api.createSession({
        title: `crash ${spec.label} #${run}`,
        tools: ["http_fetch"],
        ...(spec.approveWrites ? { approvals: [{ tool: "http_fetch", match: { method: ["POST"] } }] } : {}),
      }),
      30_000,
      "create session",
    );
    if (spec.hold) service.hold(spec.hold);
    // F0 hangs inside POST /messages, so the answer may never come: do not await it here.
    const sending = api
      .sendMessage(session.id, `Crash case ${spec.label}: read the value, then update it.`)
      .catch(() => null);
    await sink.waitFor(spec.failpoint, 60_000);
    step(`failpoint ${spec.failpoint} reported`);
    // F5 reports ~300 ms after the request left; make sure it has reached the service (held there).
    if (spec.hold) await service.waitForHit(spec.hold, { timeoutMs: 30_000 });
    // The object hangs at the boundary but still serves reads: this is what was durable then.
    // It must stay frozen there: a second look a little later has to find the same log.
    const atReport = {
      exportNdjson: await within(api.exportNdjson(session.id), 30_000, "export at the failpoint"),
      chatRequests: fake.chatRequests().length,
      readHits: service.hits("/read", "GET"),
      writeHits: service.hits("/write", "POST"),
    };
    await sleep(SETTLE_MS);
    const preKillExport = await within(api.exportNdjson(session.id), 30_000, "pre-kill export");
    const preSession = await within(api.getSession(session.id), 30_000, "pre-kill session");
    firstLogs = worker.logs();
    await worker.kill9();
    killed = true;
    step("killed (SIGKILL to the process group)");
    await within(sending, 30_000, "POST /messages settling after the kill");
    if (spec.hold) service.release(spec.hold);
    const preKill = {
      chatRequests: fake.chatRequests().length,
      readHits: service.hits("/read", "GET"),
      writeHits: service.hits("/write", "POST"),
      session: preSession,
    };

    const second = await startTimed({ ...worker.options, vars });
    worker = second.worker;
    step(
      `restarted without the failpoint: ready ${second.readyAt - second.spawnAt} ms after spawn (startWrangler resolved at ${second.healthyAt - second.spawnAt} ms)`,
    );
    api = createApi(worker.url, TOKEN);
    const timing: CrashObservation["timing"] = {
      restartSpawnAt: second.spawnAt,
      restartReadyAt: second.readyAt,
      restartHealthyAt: second.healthyAt,
      continuedRequestAt: null,
      turnClosedSeenAt: 0,
    };

    let beforeApproval: CrashObservation["beforeApproval"];
    const continuedIndex = preKill.chatRequests;
    if (spec.failpoint === "F11") {
      // Nothing may happen: give the leftover lease alarm time to fire and find the turn closed.
      await sleep(LEASE_MS + 2_000);
    } else {
      if (spec.approveWrites) {
        // Nothing runs until the approval is decided: wait past the lease, look, then approve.
        await sleep(LEASE_MS + 1_500);
        const waiting = await within(api.getSession(session.id), 30_000, "session before approval");
        beforeApproval = {
          chatRequests: fake.chatRequests().length,
          writeHits: service.hits("/write", "POST"),
          session: waiting,
        };
        const pending = waiting.pendingApprovals[0];
        if (!pending) throw new Error(`no pending approval after restart: ${JSON.stringify(waiting)}`);
        timing.approvedAt = Date.now();
        await within(api.decide(session.id, pending.requestId, "approve"), 30_000, "approve");
        step("approved");
      }
      // No request was sent (the approval aside): the pending alarm alone must continue the turn.
      const reqs = await fake.waitForRequests(continuedIndex + 1, 90_000);
      timing.continuedRequestAt = reqs[continuedIndex]!.at;
      step("continued model request arrived");
    }
    const done = await within(
      api.waitForIdle(session.id, { timeoutMs: 90_000, allowFailed: true }),
      120_000,
      "waiting for the turn to close",
    );
    timing.turnClosedSeenAt = Date.now();
    step("turn closed");
    const verify = await within(api.verify(session.id), 30_000, "verify");
    const exportNdjson = await within(api.exportNdjson(session.id), 30_000, "final export");
    return {
      spec,
      run,
      sessionId: session.id,
      preKillExport,
      atReport,
      preKill,
      beforeApproval,
      timing,
      final: { session: done.session, events: done.events, verify, exportNdjson },
      fake,
      streams: proxy.streams,
      service: {
        readHits: service.hits("/read", "GET"),
        writeHits: service.hits("/write", "POST"),
        readCompleted: service.completed("/read", "GET"),
        writeCompleted: service.completed("/write", "POST"),
      },
      continuedIndex,
      steps,
      firstLogs,
      restartedLogs: worker.logs(),
    };
  } catch (err) {
    const logs = worker ? worker.logs().slice(-4000) : "";
    throw new Error(
      `crash case ${spec.label} #${run}: ${err instanceof Error ? err.message : String(err)}\nsteps:\n${steps.join("\n")}\n` +
        `--- first wrangler (tail) ---\n${firstLogs.slice(-2000)}\n--- current wrangler (tail) ---\n${logs}`,
      { cause: err },
    );
  } finally {
    step("cleaning up");
    await within(worker?.stop() ?? Promise.resolve(), 30_000, "stop wrangler").catch(() => undefined);
    for (const c of cleanups.reverse()) await within(Promise.resolve(c()), 10_000, "cleanup").catch(() => undefined);
  }
}
