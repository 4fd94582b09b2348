/**
 * The model stream's two limits, apart from what the stream carries (docs/design.md#run-loop):
 * no part for `idleMs` is an idle cut; a stream still running at `deadlineAt` is a deadline cut.
 * A stop (the signal) ends the wait at once, also with a source that ignores its own signal.
 */

export type StreamCut = "idle" | "deadline";

/** Thrown by `iterateWithWatchdog` when a limit cut the stream; the source has been told to return. */
export class StreamCutError extends Error {
  constructor(readonly cut: StreamCut) {
    super(cut === "idle" ? "the stream sent no part in time" : "the stream was still running at its deadline");
    this.name = "StreamCutError";
  }
}

export type WatchdogOptions = {
  /** The longest wait for one part. */
  idleMs: number;
  /** The time (on `now`'s clock) by which the stream must have ended. */
  deadlineAt: number;
  /** A stop: the iteration throws the signal's reason as soon as it aborts. */
  signal: AbortSignal;
  now?: () => number;
};

/**
 * Yields `source`'s parts while each arrives within `idleMs` and before `deadlineAt`. On a cut it
 * asks the source to return (without waiting for it) and throws a `StreamCutError`; on a stop it
 * throws the signal's reason. A part that loses the race and fails later is ignored.
 */
export async function* iterateWithWatchdog<T>(source: AsyncIterable<T>, opts: WatchdogOptions): AsyncGenerator<T> {
  const now = opts.now ?? Date.now;
  const { signal } = opts;
  const iterator = source[Symbol.asyncIterator]();
  let ended = false;
  const release = () => {
    ended = true;
    void iterator.return?.()?.catch(() => undefined);
  };
  const STOPPED = Symbol("stopped");
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<typeof STOPPED>((resolve) => {
    onAbort = () => resolve(STOPPED);
    if (signal.aborted) resolve(STOPPED);
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    for (;;) {
      const wait = Math.max(0, Math.min(opts.idleMs, opts.deadlineAt - now()));
      const limit = new Promise<StreamCut>((resolve) => {
        timer = setTimeout(() => resolve(now() >= opts.deadlineAt ? "deadline" : "idle"), wait);
      });
      const pending = iterator.next();
      pending.catch(() => undefined);
      const next = await Promise.race([pending, limit, stopped]);
      clearTimeout(timer);
      if (next === STOPPED) {
        release();
        throw signal.reason;
      }
      if (next === "idle" || next === "deadline") {
        release();
        throw new StreamCutError(next);
      }
      if (next.done) {
        ended = true;
        return;
      }
      yield next.value;
    }
  } catch (err) {
    ended = true;
    throw err;
  } finally {
    clearTimeout(timer);
    // The consumer left early (a `break` or a throw in its loop body): the source ends too.
    if (!ended) release();
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
