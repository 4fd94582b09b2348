/**
 * A signal that aborts after `ms` with a `TimeoutError` (as `AbortSignal.timeout` does) or when
 * any of `signals` aborts, and `clear()`, which drops its timer once the work is done.
 *
 * In a Durable Object a pending timer keeps the object's last request open: the platform waits
 * for every timer before it lets an idle object go (docs/design.md#memory-an-object-holds). `AbortSignal.timeout`
 * cannot be cancelled, so a 60 s tool deadline held a session in memory for 60 s after each call.
 */
export function deadline(ms: number, ...signals: AbortSignal[]): { signal: AbortSignal; clear: () => void } {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(new DOMException("The operation timed out.", "TimeoutError")), ms);
  const signal = signals.length > 0 ? AbortSignal.any([...signals, ctl.signal]) : ctl.signal;
  return { signal, clear: () => clearTimeout(timer) };
}
