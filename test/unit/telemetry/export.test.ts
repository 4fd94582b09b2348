/**
 * docs/API.md#sending-traces-to-a-collector: the collector's configuration from the
 * environment (headers may name secrets), and the outbox's retry with backoff.
 */
import { describe, expect, it } from "vitest";
import {
  afterAttempt,
  answerOf,
  beforeAttempt,
  built,
  EMPTY_OUTBOX,
  exportBackoff,
  exportConfig,
  exportDue,
  exportStatus,
  MAX_BUILD_TRIES,
  retryAfterMs,
} from "../../../src/telemetry/export";

describe("exportConfig", () => {
  it("is off without an endpoint; traces go to <endpoint>/v1/traces as JSON", () => {
    expect(exportConfig({})).toBeNull();
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toBeNull();
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://localhost:4318/" })).toEqual({
      url: "http://localhost:4318/v1/traces",
      headers: { "content-type": "application/json" },
    });
  });

  it("headers are k=v pairs, percent-decoded, and {{secret:NAME}} is the secret's value", () => {
    const c = exportConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.example.com/otel",
      OTEL_EXPORTER_OTLP_HEADERS: "x-team=a%20b, authorization=Bearer {{secret:OTLP_TOKEN}}",
      OTLP_TOKEN: "tok-123",
    });
    expect(c).toEqual({
      url: "https://otlp.example.com/otel/v1/traces",
      headers: { "x-team": "a b", authorization: "Bearer tok-123", "content-type": "application/json" },
    });
  });

  it("a missing secret or a malformed value turns export off with a reason that holds no secret", () => {
    const missing = exportConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://x.test",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization={{secret:NOPE}}",
    });
    expect(missing).toEqual({ error: "OTEL_EXPORTER_OTLP_HEADERS: pair 1: secret NOPE is not set" });
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toHaveProperty("error");
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://x.test" })).toHaveProperty("error");
    expect(
      exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://x.test", OTEL_EXPORTER_OTLP_HEADERS: "novalue" }),
    ).toHaveProperty("error");
  });
});

const turn = { turnId: "t1", closeSeq: 42 };

describe("the outbox", () => {
  it("is due now when a closed turn waits and nothing was tried, at the retry after a refusal, never when empty", () => {
    expect(exportDue(false, EMPTY_OUTBOX, 1000)).toBeNull();
    expect(exportDue(true, EMPTY_OUTBOX, 1000)).toBe(1000);
    const refused = beforeAttempt(EMPTY_OUTBOX, 1000);
    expect(refused).toMatchObject({ throughSeq: 0, failures: 1, retryAt: 2000 });
    expect(exportDue(true, refused, 1500)).toBe(2000);
  });

  it("backs off doubling from 1 s up to 5 minutes; a 2xx moves past the turn and clears the retry", () => {
    expect([1, 2, 3, 4].map(exportBackoff)).toEqual([1000, 2000, 4000, 8000]);
    expect(exportBackoff(30)).toBe(300_000);
    const twice = beforeAttempt(beforeAttempt(EMPTY_OUTBOX, 0), 1000);
    expect(twice).toMatchObject({ throughSeq: 0, failures: 2, retryAt: 3000 });
    expect(afterAttempt(twice, turn, { kind: "sent" }, 3000)).toEqual({ throughSeq: 42, failures: 0, retryAt: null });
  });
});

describe("a bad setting turns export off and never throws", () => {
  it("a stray % in a header's value or name is an error naming the pair, never its value", () => {
    for (const headers of ["authorization=Bearer 100%", "x-a=ok,x%zz=v"]) {
      const c = exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://x.test", OTEL_EXPORTER_OTLP_HEADERS: headers });
      expect(c).toHaveProperty("error");
      expect((c as { error: string }).error).toMatch(
        /^OTEL_EXPORTER_OTLP_HEADERS: pair \d: the (name|value) is not valid percent-encoding$/,
      );
    }
  });

  it("a header name or value fetch would refuse is an error at configuration, not at every send", () => {
    for (const headers of ["bad name=v", "x-a=line%0Abreak"]) {
      const c = exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://x.test", OTEL_EXPORTER_OTLP_HEADERS: headers });
      expect(c).toEqual({ error: "OTEL_EXPORTER_OTLP_HEADERS: pair 1: not a valid HTTP header" });
    }
  });
});

describe("exportStatus: what GET /healthz says of export", () => {
  it("on, off with nothing set, off with the reason when a setting is bad (no value in it)", () => {
    expect(exportStatus({})).toEqual({ on: false });
    expect(exportStatus({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://x.test" })).toEqual({ on: true });
    expect(
      exportStatus({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://x.test", OTEL_EXPORTER_OTLP_HEADERS: "k=tok-9%" }),
    ).toEqual({ on: false, reason: "OTEL_EXPORTER_OTLP_HEADERS: pair 1: the value is not valid percent-encoding" });
  });
});

describe("an endpoint with a query string", () => {
  it("keeps its query after /v1/traces, and drops a fragment", () => {
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.test/base/?tenant=a&k=1#x" })).toMatchObject({
      url: "https://otlp.test/base/v1/traces?tenant=a&k=1",
    });
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://otlp.test?tenant=a" })).toMatchObject({
      url: "https://otlp.test/v1/traces?tenant=a",
    });
  });
});

describe("OTLP/HTTP retry rules", () => {
  const at = Date.parse("2026-12-02T00:00:00Z");

  it("2xx is sent; 429, 502, 503, 504 and no answer are retried; anything else is dropped with its status", () => {
    expect(answerOf({ status: 200, retryAfter: null }, at)).toEqual({ kind: "sent" });
    expect(answerOf({ status: 204, retryAfter: null }, at)).toEqual({ kind: "sent" });
    for (const status of [429, 502, 503, 504])
      expect(answerOf({ status, retryAfter: null }, at)).toEqual({ kind: "retry", afterMs: null });
    expect(answerOf(null, at)).toEqual({ kind: "retry", afterMs: null });
    for (const status of [400, 401, 403, 404, 413, 500, 501])
      expect(answerOf({ status, retryAfter: "5" }, at)).toEqual({ kind: "dropped", status });
  });

  it("Retry-After in seconds or as a date sets the retry; absent, the backoff stands", () => {
    expect(retryAfterMs("30", at)).toBe(30_000);
    expect(retryAfterMs(new Date(at + 90_000).toUTCString(), at)).toBe(90_000);
    expect(retryAfterMs("soon", at)).toBeNull();
    expect(retryAfterMs("999999", at)).toBe(3_600_000);
    const pending = beforeAttempt(EMPTY_OUTBOX, at);
    expect(afterAttempt(pending, turn, answerOf({ status: 429, retryAfter: "30" }, at), at).retryAt).toBe(at + 30_000);
    expect(afterAttempt(pending, turn, answerOf({ status: 503, retryAfter: null }, at), at)).toEqual(built(pending));
  });

  it("a dropped turn moves the outbox past it and is recorded with its status", () => {
    const pending = beforeAttempt(beforeAttempt(EMPTY_OUTBOX, at), at);
    const dropped = afterAttempt(pending, turn, { kind: "dropped", status: 400 }, at);
    expect(dropped).toEqual({
      throughSeq: 42,
      failures: 0,
      retryAt: null,
      dropped: { count: 1, last: [{ turnId: "t1", closeSeq: 42, status: 400 }] },
    });
    const unbuildable = afterAttempt(dropped, { turnId: "t2", closeSeq: 50 }, { kind: "unbuildable" }, at);
    expect(unbuildable.throughSeq).toBe(50);
    expect(unbuildable.dropped?.count).toBe(2);
    expect(unbuildable.dropped?.last.at(-1)).toEqual({ turnId: "t2", closeSeq: 50, status: "unbuildable" });
  });
});

describe("a build that never finishes", () => {
  it("is counted per turn across crashes; past the limit the caller knows to drop it; a finished build clears it", () => {
    let state = EMPTY_OUTBOX;
    for (let i = 1; i <= MAX_BUILD_TRIES + 1; i++) {
      state = beforeAttempt(state, i * 1000, 42); // the object died before `built`
      expect(state.building).toEqual({ closeSeq: 42, tries: i });
    }
    expect(beforeAttempt(state, 0, 50).building).toEqual({ closeSeq: 50, tries: 1 });
    expect(built(beforeAttempt(EMPTY_OUTBOX, 0, 42))).not.toHaveProperty("building");
  });
});
