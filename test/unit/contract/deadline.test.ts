/** A deadline's signal: a timeout as AbortSignal.timeout gives, any outer signal, and a timer that ends with the work. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { deadline } from "../../../src/contract";

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
});
