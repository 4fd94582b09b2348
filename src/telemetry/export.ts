/**
 * Exporting closed turns to an OTLP/HTTP collector (docs/API.md#sending-traces-to-a-collector):
 * the configuration read from the environment, what a collector's answer means (OTLP/HTTP's
 * retry rules), the outbox's backoff and when it is next due. Pure: the object's alarm carries
 * these decisions out (`outbox.ts`).
 */
import { substituteSecrets } from "../tools/secrets";

export type ExportConfig = { url: string; headers: Record<string, string> };

/** A turn the outbox gave up on: refused for good by the collector (its status), or not buildable. */
export type Dropped = { turnId: string; closeSeq: number; status: number | "unbuildable" };

/**
 * What the outbox remembers beside the log: the seq of the last `turnClose` it is done with
 * (sent or dropped), its retry, and the turns it dropped (the last few, and how many in all).
 */
export type OutboxState = {
  throughSeq: number;
  failures: number;
  retryAt: number | null;
  dropped?: { count: number; last: Dropped[] };
  /** A build under way: the turn, and how many builds of it began without finishing (a crash). */
  building?: { closeSeq: number; tries: number };
};

export const EMPTY_OUTBOX: OutboxState = { throughSeq: 0, failures: 0, retryAt: null };

/** How many dropped turns the outbox keeps by name. */
const DROPPED_KEPT = 20;

/**
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (the collector's base URL; traces go to `<endpoint>/v1/traces`,
 * its query kept) and `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, values percent-decoded as OTel
 * specifies; a `{{secret:NAME}}` in a value is the Worker secret `NAME`). Null when no endpoint is
 * set; an error names what is wrong with a set but unusable configuration (never a value). Never
 * throws: a bad setting turns export off, it never stops a session.
 */
export function exportConfig(vars: Record<string, unknown>): ExportConfig | { error: string } | null {
  const endpoint = typeof vars.OTEL_EXPORTER_OTLP_ENDPOINT === "string" ? vars.OTEL_EXPORTER_OTLP_ENDPOINT.trim() : "";
  if (!endpoint) return null;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { error: "OTEL_EXPORTER_OTLP_ENDPOINT is not a URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { error: "OTEL_EXPORTER_OTLP_ENDPOINT must be http(s)" };
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  url.hash = "";
  const headers = exportHeaders(vars);
  if (typeof headers === "string") return { error: headers };
  return { url: url.toString(), headers: { ...headers, "content-type": "application/json" } };
}

/**
 * What `GET /healthz` says of trace export: on, off (no endpoint set), or off because a setting
 * is bad, with what is wrong (names only, never a value).
 */
export type ExportStatus = { on: true } | { on: false; reason?: string };

export function exportStatus(vars: Record<string, unknown>): ExportStatus {
  const config = exportConfig(vars);
  if (!config) return { on: false };
  return "error" in config ? { on: false, reason: config.error } : { on: true };
}

/** The headers, or what is wrong with them. */
function exportHeaders(vars: Record<string, unknown>): Record<string, string> | string {
  const headers: Record<string, string> = {};
  const raw = typeof vars.OTEL_EXPORTER_OTLP_HEADERS === "string" ? vars.OTEL_EXPORTER_OTLP_HEADERS : "";
  const pairs = raw.split(",").filter((p) => p.trim());
  for (const [i, pair] of pairs.entries()) {
    const where = `OTEL_EXPORTER_OTLP_HEADERS: pair ${i + 1}`;
    const eq = pair.indexOf("=");
    if (eq <= 0) return `${where}: expected k=v`;
    const key = percentDecoded(pair.slice(0, eq).trim());
    const decoded = percentDecoded(pair.slice(eq + 1).trim());
    if (key === null) return `${where}: the name is not valid percent-encoding`;
    if (decoded === null) return `${where}: the value is not valid percent-encoding`;
    const value = substituteSecrets(decoded, (name) => {
      const v = vars[name];
      return typeof v === "string" ? v : undefined;
    });
    if (!value.ok) return `${where}: secret ${value.name} is not set`;
    try {
      new Headers([[key, value.text]]);
    } catch {
      return `${where}: not a valid HTTP header`;
    }
    headers[key] = value.text;
  }
  return headers;
}

function percentDecoded(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** Wait before retry `failures` (1-based): 1 s doubling, at most 5 minutes. */
export function exportBackoff(failures: number): number {
  return Math.min(1000 * 2 ** Math.max(0, failures - 1), 300_000);
}

/** The longest `Retry-After` honoured: a collector cannot park the outbox for longer. */
const RETRY_AFTER_MAX_MS = 3_600_000;

/**
 * What a collector's answer means (OTLP/HTTP): a 2xx is `sent`; 429, 502, 503, 504 and no
 * answer at all (a network error, a timeout) are retried, after `Retry-After` when it says so;
 * any other status is refused for good, and the turn is `dropped` with it.
 */
export type Answer = { kind: "sent" } | { kind: "retry"; afterMs: number | null } | { kind: "dropped"; status: number };

export function answerOf(res: { status: number; retryAfter: string | null } | null, now: number): Answer {
  if (!res) return { kind: "retry", afterMs: null };
  if (res.status >= 200 && res.status < 300) return { kind: "sent" };
  if ([429, 502, 503, 504].includes(res.status)) return { kind: "retry", afterMs: retryAfterMs(res.retryAfter, now) };
  return { kind: "dropped", status: res.status };
}

/** `Retry-After` as a delay: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | null {
  const v = value?.trim();
  if (!v) return null;
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS) : null;
}

/** When the outbox is next due: null with nothing to export, its retry time, or now. */
export function exportDue(pending: boolean, state: OutboxState, now: number): number | null {
  if (!pending) return null;
  return state.retryAt ?? now;
}

/** Builds of one turn that may begin and never finish (the isolate died) before it is unbuildable. */
export const MAX_BUILD_TRIES = 3;

/**
 * The state before the turn closed at `closeSeq` is built and sent: one more failure and its
 * retry time, and the build under way, stored first, so that whatever happens next (a crash
 * building or sending it) the alarm comes back then, and a turn whose build keeps killing the
 * object is known (`tries` past `MAX_BUILD_TRIES`: the caller drops it, unbuilt).
 */
export function beforeAttempt(state: OutboxState, now: number, closeSeq = 0): OutboxState {
  const failures = state.failures + 1;
  const tries = state.building?.closeSeq === closeSeq ? state.building.tries + 1 : 1;
  return { ...state, failures, retryAt: now + exportBackoff(failures), building: { closeSeq, tries } };
}

/** The trace was built: no build is under way. */
export function built(state: OutboxState): OutboxState {
  const { building: _, ...rest } = state;
  return rest;
}

/** The state after the turn closed at `closeSeq` got `answer` (or could not be built). */
export function afterAttempt(
  state: OutboxState,
  turn: { turnId: string; closeSeq: number },
  answer: Answer | { kind: "unbuildable" },
  now: number,
): OutboxState {
  switch (answer.kind) {
    case "sent":
      return { ...built(state), throughSeq: turn.closeSeq, failures: 0, retryAt: null };
    case "retry":
      return answer.afterMs === null
        ? built(state)
        : { ...built(state), retryAt: now + Math.max(answer.afterMs, 1000) };
    default: {
      const status: Dropped["status"] = answer.kind === "dropped" ? answer.status : "unbuildable";
      const last: Dropped[] = [
        ...(state.dropped?.last ?? []),
        { turnId: turn.turnId, closeSeq: turn.closeSeq, status },
      ];
      return {
        throughSeq: turn.closeSeq,
        failures: 0,
        retryAt: null,
        dropped: { count: (state.dropped?.count ?? 0) + 1, last: last.slice(-DROPPED_KEPT) },
      };
    }
  }
}

/** The collector's usual limit for one request; a larger trace goes in several. */
export const EXPORT_MAX_BYTES = 4 * 1024 * 1024;
