import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { iterateWithWatchdog, StreamCutError } from "../../../src/runtime/stream-watchdog";

/** A source whose parts the test pushes by hand; `returned` says whether it was told to stop. */
function manualSource<T>() {
  const queue: T[] = [];
  let waiting: ((r: IteratorResult<T>) => void) | null = null;
  let ended = false;
  const state = { returned: false };
  const source: AsyncIterable<T> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const value = queue.shift();
        if (value !== undefined) return Promise.resolve({ value, done: false });
        if (ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          waiting = resolve;
        });
      },
      return: () => {
        state.returned = true;
        return Promise.resolve({ value: undefined, done: true });
      },
    }),
  };
  return {
    source,
    state,
    push(value: T) {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w({ value, done: false });
      } else queue.push(value);
    },
    end() {
      ended = true;
      if (waiting) waiting({ value: undefined, done: true });
    },
  };
}

/** Collects what the iteration yields, and how it ended. */
function consume<T>(it: AsyncIterable<T>) {
  const parts: T[] = [];
  const done = (async () => {
    try {
      for await (const p of it) parts.push(p);
      return { ended: "done" as const };
    } catch (err) {
      return { ended: "threw" as const, err };
    }
  })();
  return { parts, done };
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("iterateWithWatchdog", () => {
  it("passes every part through and ends with the source", async () => {
    const s = manualSource<number>();
    const run = consume(
      iterateWithWatchdog(s.source, { idleMs: 1000, deadlineAt: 10_000, signal: new AbortController().signal }),
    );
    s.push(1);
    await vi.advanceTimersByTimeAsync(900);
    s.push(2);
    await vi.advanceTimersByTimeAsync(900);
    s.end();
    expect(await run.done).toEqual({ ended: "done" });
    expect(run.parts).toEqual([1, 2]);
    expect(s.state.returned).toBe(false);
  });

  it("a stream silent for idleMs is cut as idle, and the source is told to return", async () => {
    const s = manualSource<number>();
    const run = consume(
      iterateWithWatchdog(s.source, { idleMs: 1000, deadlineAt: 60_000, signal: new AbortController().signal }),
    );
    s.push(1);
    await vi.advanceTimersByTimeAsync(999);
    s.push(2);
    // Each part restarts the idle wait: 999 ms more is still in time.
    await vi.advanceTimersByTimeAsync(999);
    expect(run.parts).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1);
    const result = await run.done;
    expect(result.ended).toBe("threw");
    expect(result.ended === "threw" && result.err).toBeInstanceOf(StreamCutError);
    expect((result as { err: StreamCutError }).err.cut).toBe("idle");
    expect(s.state.returned).toBe(true);
    // A part that arrives after the cut is not yielded.
    s.push(3);
    expect(run.parts).toEqual([1, 2]);
  });

  it("a stream still sending at deadlineAt is cut as deadline, even though no wait was idle", async () => {
    const s = manualSource<number>();
    const run = consume(
      iterateWithWatchdog(s.source, { idleMs: 1000, deadlineAt: 2500, signal: new AbortController().signal }),
    );
    for (let t = 0; t < 2400; t += 500) {
      s.push(t);
      await vi.advanceTimersByTimeAsync(500);
    }
    const result = await run.done;
    expect(result.ended).toBe("threw");
    expect((result as { err: StreamCutError }).err.cut).toBe("deadline");
    expect(run.parts).toEqual([0, 500, 1000, 1500, 2000]);
    expect(s.state.returned).toBe(true);
  });

  it("a deadline already passed cuts before the first part", async () => {
    vi.setSystemTime(5000);
    const s = manualSource<number>();
    const run = consume(
      iterateWithWatchdog(s.source, { idleMs: 1000, deadlineAt: 4000, signal: new AbortController().signal }),
    );
    await vi.advanceTimersByTimeAsync(0);
    const result = await run.done;
    expect((result as { err: StreamCutError }).err.cut).toBe("deadline");
  });

  it("a stop ends the wait at once with the signal's reason, also when the source ignores it", async () => {
    const s = manualSource<number>();
    const stop = new AbortController();
    const run = consume(iterateWithWatchdog(s.source, { idleMs: 1000, deadlineAt: 60_000, signal: stop.signal }));
    s.push(1);
    await vi.advanceTimersByTimeAsync(10);
    const reason = new Error("stopped by the user");
    stop.abort(reason);
    await vi.advanceTimersByTimeAsync(0);
    const result = await run.done;
    expect(result).toEqual({ ended: "threw", err: reason });
    expect(s.state.returned).toBe(true);
  });

  it("a source that fails passes its error through", async () => {
    const err = new Error("connection reset");
    const source: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(err) }),
    };
    const run = consume(
      iterateWithWatchdog(source, { idleMs: 1000, deadlineAt: 60_000, signal: new AbortController().signal }),
    );
    expect(await run.done).toEqual({ ended: "threw", err });
  });

  it("a consumer that leaves early tells the source to return, and no timer is left behind", async () => {
    const s = manualSource<number>();
    s.push(1);
    for await (const _ of iterateWithWatchdog(s.source, {
      idleMs: 1000,
      deadlineAt: 60_000,
      signal: new AbortController().signal,
    }))
      break;
    expect(s.state.returned).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the time a consumer holds a part is not idle time: only the wait for the next part counts", async () => {
    const s = manualSource<number>();
    const parts: number[] = [];
    const done = (async () => {
      for await (const p of iterateWithWatchdog(s.source, {
        idleMs: 1000,
        deadlineAt: 60_000,
        signal: new AbortController().signal,
      })) {
        parts.push(p);
        // The consumer works on the part (commits it, say) for longer than the idle limit.
        await new Promise((r) => setTimeout(r, 3000));
      }
      return "done";
    })();
    s.push(1);
    await vi.advanceTimersByTimeAsync(3000);
    s.push(2);
    await vi.advanceTimersByTimeAsync(3000);
    s.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(await done).toBe("done");
    expect(parts).toEqual([1, 2]);
  });

  it("a long answer runs on one timer, not one per part", async () => {
    const s = manualSource<number>();
    const timers = vi.spyOn(globalThis, "setTimeout");
    const run = consume(
      iterateWithWatchdog(s.source, { idleMs: 1000, deadlineAt: 60_000, signal: new AbortController().signal }),
    );
    for (let i = 0; i < 200; i++) {
      s.push(i);
      await vi.advanceTimersByTimeAsync(1);
    }
    s.end();
    expect(await run.done).toEqual({ ended: "done" });
    expect(run.parts).toHaveLength(200);
    // 200 ms of parts within a 1,000 ms idle limit: the one timer never even had to wake.
    expect(timers.mock.calls.length).toBeLessThanOrEqual(2);
    expect(vi.getTimerCount()).toBe(0);
    timers.mockRestore();
  });
});
