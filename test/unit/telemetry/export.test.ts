/**
 * docs/API.md#sending-traces-to-a-collector: the collector's configuration from the
 * environment (headers may name secrets), and the outbox's retry with backoff.
 */
import { describe, expect, it } from "vitest";
import { afterAttempt, EMPTY_OUTBOX, exportBackoff, exportConfig, exportDue } from "../../../src/telemetry/export";

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
    expect(missing).toEqual({ error: "OTEL_EXPORTER_OTLP_HEADERS: secret NOPE is not set" });
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toHaveProperty("error");
    expect(exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "ftp://x.test" })).toHaveProperty("error");
    expect(
      exportConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: "https://x.test", OTEL_EXPORTER_OTLP_HEADERS: "novalue" }),
    ).toHaveProperty("error");
  });
});

describe("the outbox", () => {
  it("is due now when a closed turn waits and nothing was tried, at the retry after a refusal, never when empty", () => {
    expect(exportDue(false, EMPTY_OUTBOX, 1000)).toBeNull();
    expect(exportDue(true, EMPTY_OUTBOX, 1000)).toBe(1000);
    const refused = afterAttempt(EMPTY_OUTBOX, 42, false, 1000);
    expect(refused).toEqual({ throughSeq: 0, failures: 1, retryAt: 2000 });
    expect(exportDue(true, refused, 1500)).toBe(2000);
  });

  it("backs off doubling from 1 s up to 5 minutes; a 2xx moves past the turn and clears the retry", () => {
    expect([1, 2, 3, 4].map(exportBackoff)).toEqual([1000, 2000, 4000, 8000]);
    expect(exportBackoff(30)).toBe(300_000);
    const twice = afterAttempt(afterAttempt(EMPTY_OUTBOX, 42, false, 0), 42, false, 1000);
    expect(twice).toEqual({ throughSeq: 0, failures: 2, retryAt: 3000 });
    expect(afterAttempt(twice, 42, true, 3000)).toEqual({ throughSeq: 42, failures: 0, retryAt: null });
  });
});
