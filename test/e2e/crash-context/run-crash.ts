/**
 * One kill -9 at a context failpoint (F9 compaction, F10 offload), end to end: `wrangler dev`
 * with the failpoint armed, a message, the failpoint's report, two exports a moment apart
 * (the object must be frozen), SIGKILL of the process group, a restart on the same persist
 * dir without the failpoint vars and with no request to the worker: the lease alarm alone must
 * continue the turn. Assertions live in the test file; this only gathers what it needs.
 */
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { type Api, createApi, type Event, type Session, type SessionOptions, type VerifyResult } from "../harness/api";
import type { FakeOpenAI } from "../harness/fake-openai";
import {
  type FailpointSink,
  makePersistDir,
  restartWrangler,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../harness/wrangler";

export const TOKEN = "crash-context-token";
/** How long the test watches the frozen object between the two pre-kill exports. */
export const SETTLE_MS = 750;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Rejects with `what` if `p` takes longer than `ms`, so a hang is a readable failure. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** docs/API.md §3 `canonical`: JSON with every object's keys sorted, no whitespace (written here, not imported). */
export function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonical(v))).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(",")}}`;
}

export const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** NDJSON lines (the trailing newline does not make an empty line). */
export const ndjsonLines = (text: string) => text.split("\n").filter((l) => l.length > 0);

export type CrashRun = {
  sessionId: string;
  /** Export when the failpoint reported, and again `SETTLE_MS` later, just before the kill. */
  atReportExport: string;
  preKillExport: string;
  preKillSession: Session;
  /** Chat requests the fake had received when the worker was killed (index of the first one after the restart). */
  chatRequestsAtKill: number;
  timing: { failpointAfterMs: number; restartHealthyMs: number; continuedAfterMs: number; closedAfterMs: number };
  final: { session: Session; events: Event[]; verify: VerifyResult; exportNdjson: string };
  /** Bound to the restarted worker, still running until `cleanup`. */
  api: Api;
  worker: Wrangler;
  steps: string[];
  firstLogs: string;
  cleanup(): Promise<void>;
};

/**
 * Runs the case through the kill and the recovery; the restarted worker stays up (for archive
 * reads) until `cleanup()`. On failure everything is stopped and the error carries the logs.
 */
export async function runCrashAtFailpoint(opts: {
  label: string;
  failpoint: "F9" | "F10";
  fake: FakeOpenAI;
  vars: Record<string, string>;
  session: SessionOptions;
  message: string;
}): Promise<CrashRun> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const steps: string[] = [];
  const t0 = Date.now();
  const step = (what: string) => {
    steps.push(`+${String(Date.now() - t0).padStart(6)} ms ${what}`);
    if (process.env.CRASH_DEBUG) console.error(`[${opts.label}] ${steps.at(-1)}`);
  };
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await within(Promise.resolve(c()), 30_000, "cleanup").catch(() => undefined);
    cleanups.length = 0;
  };
  let worker: Wrangler | undefined;
  let firstLogs = "";
  try {
    const sink: FailpointSink = await startFailpointSink();
    cleanups.push(() => sink.close());
    const persistTo = makePersistDir("hw-crash-ctx-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    cleanups.push(() => worker?.stop());

    step(`starting wrangler with HW_FAILPOINT=${opts.failpoint}`);
    worker = await startWrangler({
      persistTo,
      vars: { API_TOKENS: TOKEN, ...opts.vars, HW_FAILPOINT: opts.failpoint, HW_FAILPOINT_URL: sink.url },
    });
    step("ready");
    let api = createApi(worker.url, TOKEN);
    const session = await within(api.createSession(opts.session), 30_000, "create session");
    await within(api.sendMessage(session.id, opts.message), 30_000, "send message");
    step(`session ${session.id} created, message sent`);

    await sink.waitFor(opts.failpoint, 90_000);
    const failpointAfterMs = Date.now() - t0;
    step(`failpoint ${opts.failpoint} reported (${opts.fake.chatRequests().length} chat requests so far)`);
    // The object hangs at the boundary but still serves reads; nothing may change while it hangs.
    const atReportExport = await within(api.exportNdjson(session.id), 30_000, "export at the failpoint");
    await sleep(SETTLE_MS);
    const preKillExport = await within(api.exportNdjson(session.id), 30_000, "pre-kill export");
    const preKillSession = await within(api.getSession(session.id), 30_000, "pre-kill session");
    firstLogs = worker.logs();
    const chatRequestsAtKill = opts.fake.chatRequests().length;
    const restartAt = Date.now();
    worker = await restartWrangler(worker, { dropVars: ["HW_FAILPOINT", "HW_FAILPOINT_URL"] });
    const restartHealthyMs = Date.now() - restartAt;
    step(`killed (SIGKILL, process group) and restarted without the failpoint in ${restartHealthyMs} ms`);
    api = createApi(worker.url, TOKEN);

    // No request to the worker: the pending lease alarm alone must continue the turn.
    const reqs = await opts.fake.waitForRequests(chatRequestsAtKill + 1, 60_000);
    const continuedAfterMs = reqs[chatRequestsAtKill]!.at - restartAt;
    step(`first model request after the restart (${continuedAfterMs} ms after the kill)`);
    const done = await within(
      api.waitForIdle(session.id, { timeoutMs: 90_000, allowFailed: true }),
      100_000,
      "waiting for the turn to close",
    );
    const closedAfterMs = Date.now() - restartAt;
    step(`turn closed (${done.session.status}), ${done.events.length} events`);
    const verify = await within(api.verify(session.id), 30_000, "verify");
    const exportNdjson = await within(api.exportNdjson(session.id), 30_000, "final export");
    return {
      sessionId: session.id,
      atReportExport,
      preKillExport,
      preKillSession,
      chatRequestsAtKill,
      timing: { failpointAfterMs, restartHealthyMs, continuedAfterMs, closedAfterMs },
      final: { session: done.session, events: done.events, verify, exportNdjson },
      api,
      worker,
      steps,
      firstLogs,
      cleanup,
    };
  } catch (err) {
    const logs = worker ? worker.logs().slice(-4000) : "";
    await cleanup();
    throw new Error(
      `${opts.label}: ${err instanceof Error ? err.message : String(err)}\nsteps:\n${steps.join("\n")}\n` +
        `--- first wrangler (tail) ---\n${firstLogs.slice(-2500)}\n--- current wrangler (tail) ---\n${logs}`,
      { cause: err },
    );
  }
}

/** Something a scenario started and must stop, whatever the outcome. */
export type Closeable = { close(): Promise<void> } | { cleanup(): Promise<void> };

/**
 * A scenario started once (through `gate`) and awaited by its describe block; `start()` from a
 * file-level hook lets scenarios overlap. `setup` registers what it starts in `own` as it goes,
 * and `dispose()` stops all of it, also after a failure.
 */
export function scenario<T>(gate: <R>(fn: () => Promise<R>) => Promise<R>, setup: (own: Closeable[]) => Promise<T>) {
  let promise: Promise<T> | undefined;
  const own: Closeable[] = [];
  const start = () => {
    if (!promise) {
      promise = gate(() => setup(own));
      // Awaited by its describe block; a failure must not also be an unhandled rejection.
      promise.catch(() => undefined);
    }
    return promise;
  };
  return {
    start,
    async dispose() {
      if (!promise) return;
      await promise.catch(() => undefined);
      for (const c of own.reverse())
        await within("cleanup" in c ? c.cleanup() : c.close(), 30_000, "dispose").catch(() => undefined);
    },
  };
}
