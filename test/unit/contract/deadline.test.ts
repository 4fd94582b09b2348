/** A deadline's signal: a timeout as AbortSignal.timeout gives, any outer signal, and a timer that ends with the work. */

import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { deadline, lazyDeadline, linkedSignal, StopSource } from "../../../src/contract";

afterEach(() => {
  vi.useRealTimers();
});

describe("deadline", () => {
  it("aborts with a TimeoutError when its time passes", () => {
    vi.useFakeTimers();
    const d = deadline(1_000);
    vi.advanceTimersByTime(999);
    expect(d.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("aborts with an outer signal's reason when that one aborts first", () => {
    vi.useFakeTimers();
    const outer = new AbortController();
    const d = deadline(1_000, outer.signal);
    outer.abort(new Error("stopped"));
    expect(d.signal.aborted).toBe(true);
    expect((d.signal.reason as Error).message).toBe("stopped");
    d.clear();
  });

  it("leaves no timer once cleared, and its signal never aborts afterwards", () => {
    vi.useFakeTimers();
    const d = deadline(1_000);
    expect(vi.getTimerCount()).toBe(1);
    d.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    expect(d.signal.aborted).toBe(false);
  });

  it("lazy: work that has already settled never sets a timer", async () => {
    vi.useFakeTimers();
    const d = lazyDeadline(1_000);
    d.watch(Promise.resolve("at once"));
    await Promise.resolve();
    await Promise.resolve();
    expect(vi.getTimerCount()).toBe(0);
    d.clear();
  });

  it("lazy: work still running after a microtask gets its timer, and times out", async () => {
    vi.useFakeTimers();
    const d = lazyDeadline(1_000);
    d.watch(new Promise(() => {}));
    await Promise.resolve();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(1_000);
    expect((d.signal.reason as DOMException).name).toBe("TimeoutError");
  });

  it("lazy: cleared before the check, no timer is set", async () => {
    vi.useFakeTimers();
    const d = lazyDeadline(1_000);
    d.watch(new Promise(() => {}));
    d.clear();
    await Promise.resolve();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a cleared deadline leaves no listener on its outer signal, which may live as long as the session", () => {
    const outer = new AbortController();
    const d = deadline(1_000, outer.signal);
    expect(getEventListeners(outer.signal, "abort")).toHaveLength(1);
    d.clear();
    expect(getEventListeners(outer.signal, "abort")).toHaveLength(0);
    outer.abort(new Error("stopped"));
    expect(d.signal.aborted).toBe(false);
  });
});

describe("linkedSignal", () => {
  it("aborts with the reason of whichever source aborts, and then unhooks from the others", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal(a.signal, b.signal);
    b.abort(new Error("b went"));
    expect((linked.signal.reason as Error).message).toBe("b went");
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
  });

  it("is aborted at once by a source that already is", () => {
    const linked = linkedSignal(AbortSignal.abort(new Error("early")));
    expect((linked.signal.reason as Error).message).toBe("early");
  });
});

describe("StopSource", () => {
  it("a stop aborts its signal and every child still held, with its reason; a dropped child is let go", () => {
    const stops = new StopSource();
    const held = stops.child();
    const dropped = stops.child();
    stops.drop(dropped);
    stops.abort(new Error("stopped"));
    expect((stops.signal.reason as Error).message).toBe("stopped");
    expect((held.signal.reason as Error).message).toBe("stopped");
    expect(dropped.signal.aborted).toBe(false);
  });

  it("a child of a source already stopped is aborted at once", () => {
    const stops = new StopSource();
    stops.abort(new Error("stopped"));
    expect(stops.child().signal.aborted).toBe(true);
  });

  it("a deadline under a source: the stop reaches the running work, a cleared one is let go", () => {
    const stops = new StopSource();
    const running = lazyDeadline(1_000, stops);
    const finished = lazyDeadline(1_000, stops);
    finished.clear();
    stops.abort(new Error("stopped"));
    expect(running.signal.aborted).toBe(true);
    expect(finished.signal.aborted).toBe(false);
  });
});
