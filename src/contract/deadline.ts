/**
 * A signal that aborts after `ms` with a `TimeoutError` (as `AbortSignal.timeout` does) or when
 * any of `signals` aborts, and `clear()`, which drops its timer once the work is done.
 *
 * In a Durable Object a pending timer keeps the object's last request open: the platform waits
 * for every timer before it lets an idle object go (docs/design.md#memory-an-object-holds). `AbortSignal.timeout`
 * cannot be cancelled, so a 60 s tool deadline held a session in memory for 60 s after each call.
 */
export type Deadline = { readonly signal: AbortSignal; clear(): void };

/**
 * A signal that aborts when any of its sources does (with that one's reason), and `release()`,
 * which unhooks it from them. `AbortSignal.any` cannot be unhooked: each source keeps the new
 * signal and its listener until the source itself aborts, so one made from a session's
 * long-lived stop signal for every tool call or model request piled up for the object's life.
 * A class, so that making one creates no function but its listener.
 */
export class LinkedSignal {
  readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  readonly #sources: readonly AbortSignal[];
  readonly #listener = (event: Event) => this.#abort(event.target as AbortSignal);

  constructor(sources: readonly AbortSignal[]) {
    this.#sources = sources;
    for (const source of sources) {
      if (source.aborted) {
        this.controller.abort(source.reason);
        return;
      }
    }
    for (const source of sources) source.addEventListener("abort", this.#listener, { once: true });
  }

  #abort(source: AbortSignal): void {
    this.release();
    this.controller.abort(source.reason);
  }

  release(): void {
    for (const source of this.#sources) source.removeEventListener("abort", this.#listener);
  }
}

/**
 * A stop signal that hands out child controllers without hooking a listener on it for each:
 * `abort()` aborts its own signal, then every child still held. A session's stop is one; each
 * tool call's signal is a child, dropped when the call ends (an `addEventListener` per call was
 * the costliest part of a deadline in workerd).
 */
export class StopSource {
  readonly #controller = new AbortController();
  readonly #children = new Set<AbortController>();

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** A controller that aborts with this source (at once if it already has). */
  child(): AbortController {
    const child = new AbortController();
    if (this.signal.aborted) child.abort(this.signal.reason);
    else this.#children.add(child);
    return child;
  }

  drop(child: AbortController): void {
    this.#children.delete(child);
  }

  abort(reason: unknown): void {
    this.#controller.abort(reason);
    for (const child of this.#children) child.abort(reason);
    this.#children.clear();
  }
}

export function linkedSignal(...signals: AbortSignal[]): LinkedSignal {
  return new LinkedSignal(signals);
}

/**
 * A deadline whose timer is not yet set: `arm()` sets it, and `watch(work)` sets it only if the
 * work has not settled by the next microtask. Most tool calls answer at once (a SQL read, a
 * workspace write); a timer set and cleared for each was a tenth of a durable step.
 */
export class LazyDeadline implements Deadline {
  readonly #controller: AbortController;
  readonly #release: () => void;
  readonly #ms: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #done = false;
  #settled = false;

  /** `parent`: the signals it follows, or a `StopSource` it is a child of. */
  constructor(ms: number, parent: readonly AbortSignal[] | StopSource) {
    this.#ms = ms;
    if (parent instanceof StopSource) {
      const child = parent.child();
      this.#controller = child;
      this.#release = () => parent.drop(child);
    } else {
      const linked = new LinkedSignal(parent);
      this.#controller = linked.controller;
      this.#release = () => linked.release();
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  arm(): void {
    if (this.#done || this.#timer !== undefined) return;
    const controller = this.#controller;
    this.#timer = setTimeout(
      () => controller.abort(new DOMException("The operation timed out.", "TimeoutError")),
      this.#ms,
    );
  }

  watch(work: Promise<unknown>): void {
    work.then(
      () => {
        this.#settled = true;
      },
      () => {
        this.#settled = true;
      },
    );
    // Queued after the work's own reactions: work that has already settled has set the flag.
    Promise.resolve().then(() => {
      if (!this.#settled) this.arm();
    });
  }

  clear(): void {
    this.#done = true;
    this.#release();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}

export function lazyDeadline(ms: number, parent?: StopSource | AbortSignal): LazyDeadline {
  return new LazyDeadline(ms, parent instanceof StopSource ? parent : parent ? [parent] : []);
}

export function deadline(ms: number, ...signals: AbortSignal[]): Deadline {
  const d = new LazyDeadline(ms, signals);
  d.arm();
  return d;
}
