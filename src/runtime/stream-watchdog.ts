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
 *
 * One timer serves the whole stream: it wakes at the earliest moment a limit could pass and
 * decides from the clock (the wait for the current part, the deadline), re-arming itself when
 * neither has passed. A part costs no timer of its own, which matters for an answer of thousands
 * of parts.
 */
export async function* iterateWithWatchdog<T>(source: AsyncIterable<T>, opts: WatchdogOptions): AsyncGenerator<T> {
  const now = opts.now ?? Date.now;
  const { signal, idleMs, deadlineAt } = opts;
  const iterator = source[Symbol.asyncIterator]();
  let ended = false;
  const release = () => {
    ended = true;
    void iterator.return?.()?.catch(() => undefined);
  };
  const STOPPED = Symbol("stopped");
  type Verdict = StreamCut | typeof STOPPED;
  /** The first limit that passed (or the stop), and the wait it ends. */
  let verdict: Verdict | null = null;
  let wake: ((v: Verdict) => void) | null = null;
  const decide = (v: Verdict) => {
    verdict ??= v;
    wake?.(verdict);
  };
  /** When the wait for the current part began; null while the consumer holds a part. */
  let waitingSince: number | null = now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    const t = now();
    const idleAt = (waitingSince ?? t) + idleMs;
    timer = setTimeout(check, Math.max(0, Math.min(idleAt, deadlineAt) - t));
  };
  const check = () => {
    timer = undefined;
    const t = now();
    if (t >= deadlineAt) decide("deadline");
    else if (waitingSince !== null && t - waitingSince >= idleMs) decide("idle");
    else arm();
  };
  const onAbort = () => decide(STOPPED);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  arm();
  try {
    for (;;) {
      waitingSince ??= now();
      const pending = iterator.next();
      pending.catch(() => undefined);
      const next =
        verdict ??
        (await Promise.race([
          pending,
          new Promise<Verdict>((resolve) => {
            wake = resolve;
          }),
        ]));
      wake = null;
      waitingSince = null;
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
    signal.removeEventListener("abort", onAbort);
  }
}
