/**
 * Exporting closed turns to an OTLP/HTTP collector (docs/API.md#sending-traces-to-a-collector):
 * the configuration read from the environment, the outbox's backoff and when it is next due.
 * Pure: the object's alarm carries these decisions out (`outbox.ts`).
 */
import { substituteSecrets } from "../tools/secrets";

export type ExportConfig = { url: string; headers: Record<string, string> };

/** What the outbox remembers beside the log: the seq of the last exported `turnClose`, and its retry. */
export type OutboxState = { throughSeq: number; failures: number; retryAt: number | null };

export const EMPTY_OUTBOX: OutboxState = { throughSeq: 0, failures: 0, retryAt: null };

/**
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (the collector's base URL; traces go to `<endpoint>/v1/traces`)
 * and `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, values percent-decoded as OTel specifies; a
 * `{{secret:NAME}}` in a value is the Worker secret `NAME`). Null when no endpoint is set; an
 * error names what is wrong with a set but unusable configuration (never a secret's value).
 */
export function exportConfig(vars: Record<string, unknown>): ExportConfig | { error: string } | null {
  const endpoint = typeof vars.OTEL_EXPORTER_OTLP_ENDPOINT === "string" ? vars.OTEL_EXPORTER_OTLP_ENDPOINT.trim() : "";
  if (!endpoint) return null;
  let base: URL;
  try {
    base = new URL(endpoint);
  } catch {
    return { error: "OTEL_EXPORTER_OTLP_ENDPOINT is not a URL" };
  }
  if (base.protocol !== "http:" && base.protocol !== "https:")
    return { error: "OTEL_EXPORTER_OTLP_ENDPOINT must be http(s)" };
  const headers: Record<string, string> = {};
  const raw = typeof vars.OTEL_EXPORTER_OTLP_HEADERS === "string" ? vars.OTEL_EXPORTER_OTLP_HEADERS : "";
  for (const pair of raw.split(",")) {
    if (!pair.trim()) continue;
    const eq = pair.indexOf("=");
    if (eq <= 0) return { error: "OTEL_EXPORTER_OTLP_HEADERS: expected k=v pairs" };
    const key = decodeURIComponent(pair.slice(0, eq).trim());
    const value = substituteSecrets(decodeURIComponent(pair.slice(eq + 1).trim()), (name) => {
      const v = vars[name];
      return typeof v === "string" ? v : undefined;
    });
    if (!value.ok) return { error: `OTEL_EXPORTER_OTLP_HEADERS: secret ${value.name} is not set` };
    headers[key] = value.text;
  }
  const url = `${base.toString().replace(/\/+$/, "")}/v1/traces`;
  return { url, headers: { ...headers, "content-type": "application/json" } };
}

/** Wait before retry `failures` (1-based): 1 s doubling, at most 5 minutes. */
export function exportBackoff(failures: number): number {
  return Math.min(1000 * 2 ** Math.max(0, failures - 1), 300_000);
}

/** When the outbox is next due: null with nothing to export, its retry time, or now. */
export function exportDue(pending: boolean, state: OutboxState, now: number): number | null {
  if (!pending) return null;
  return state.retryAt ?? now;
}

/** The state after a POST: moved past the turn on a 2xx, else one more failure and its retry time. */
export function afterAttempt(state: OutboxState, closeSeq: number, ok: boolean, now: number): OutboxState {
  if (ok) return { throughSeq: closeSeq, failures: 0, retryAt: null };
  const failures = state.failures + 1;
  return { ...state, failures, retryAt: now + exportBackoff(failures) };
}
