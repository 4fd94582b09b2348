/**
 * A signal that aborts after `ms` with a `TimeoutError` (as `AbortSignal.timeout` does) or when
 * any of `signals` aborts, and `clear()`, which drops its timer once the work is done.
 *
 * In a Durable Object a pending timer keeps the object's last request open: the platform waits
 * for every timer before it lets an idle object go (docs/design.md#memory-an-object-holds). `AbortSignal.timeout`
 * cannot be cancelled, so a 60 s tool deadline held a session in memory for 60 s after each call.
 */
export type Deadline = { signal: AbortSignal; clear: () => void };

/**
 * A signal that aborts when any of `signals` does (with its reason), and `release()`, which
 * unhooks it from them. `AbortSignal.any` cannot be unhooked: each source keeps the new signal
 * and its listener until the source itself aborts, so one made from a session's long-lived stop
 * signal for every tool call or model request piled up for the object's whole life.
 */
export function linkedSignal(...signals: AbortSignal[]): {
  signal: AbortSignal;
  controller: AbortController;
  release: () => void;
} {
  const controller = new AbortController();
  const hooked: [AbortSignal, () => void][] = [];
  const release = () => {
    for (const [source, listener] of hooked) source.removeEventListener("abort", listener);
    hooked.length = 0;
  };
  for (const source of signals) {
    if (source.aborted) {
      release();
      controller.abort(source.reason);
      break;
    }
    const listener = () => {
      release();
      controller.abort(source.reason);
    };
    source.addEventListener("abort", listener, { once: true });
    hooked.push([source, listener]);
  }
  return { signal: controller.signal, controller, release };
}

export function deadline(ms: number, ...signals: AbortSignal[]): Deadline {
  const d = lazyDeadline(ms, ...signals);
  d.arm();
  return d;
}

/**
 * A deadline whose timer is not yet set: `arm()` sets it, and `watch(work)` sets it only if the
 * work has not settled by the next microtask. Most tool calls answer at once (a SQL read, a
 * workspace write); a timer set and cleared for each was a tenth of a durable step.
 */
export function lazyDeadline(
  ms: number,
  ...signals: AbortSignal[]
): Deadline & { arm: () => void; watch: (work: Promise<unknown>) => void } {
  const { signal, controller: ctl, release } = linkedSignal(...signals);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const arm = () => {
    if (done || timer !== undefined) return;
    timer = setTimeout(() => ctl.abort(new DOMException("The operation timed out.", "TimeoutError")), ms);
  };
  return {
    signal,
    arm,
    watch: (work) => {
      let settled = false;
      const settle = () => {
        settled = true;
      };
      work.then(settle, settle);
      // Queued after the work's own reactions: work that is already settled has run `settle`.
      queueMicrotask(() => {
        if (!settled) arm();
      });
    },
    clear: () => {
      done = true;
      release();
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
