/**
 * docs/API.md#sending-traces-to-a-collector on a real `wrangler dev`: a turn closes, the process
 * is killed (kill -9) before its trace is sent (failpoint F15), and after a restart on the same
 * --persist-to the collector receives that trace with no request to the session: the outbox is
 * the log plus a position, and the alarm brings it back. What arrives is what `GET /trace` says.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createApi } from "./harness/api";
import { type FakeService, startFakeService } from "./harness/fake-service";
import {
  type FailpointSink,
  makePersistDir,
  restartWrangler,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "./harness/wrangler";

const TOKEN = "e2e-traces";

describe("trace export across kill -9", () => {
  let worker: Wrangler | undefined;
  let sink: FailpointSink | undefined;
  let collector: FakeService | undefined;
  const persistTo = makePersistDir("hw-e2e-traces-");

  afterAll(async () => {
    await worker?.stop();
    await sink?.close();
    await collector?.close();
    rmSync(persistTo, { recursive: true, force: true });
  });

  it("a turn closed but not exported before the kill reaches the collector after the restart", async () => {
    sink = await startFailpointSink();
    collector = await startFakeService();
    worker = await startWrangler({
      persistTo,
      vars: {
        API_TOKENS: TOKEN,
        MODEL_PROVIDER: "demo",
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer {{secret:OTLP_TOKEN}}",
        OTLP_TOKEN: "tok-e2e",
        HW_FAILPOINT: "F15",
        HW_FAILPOINT_URL: sink.url,
      },
    });
    let api = createApi(worker.url, TOKEN);
    const session = await api.createSession({ title: "traced" });
    const sent = await api.raw("POST", `/v1/sessions/${session.id}/messages`, { text: "write a haiku about logs" });
    expect(sent.status).toBe(202);
    await sink.waitFor("F15");
    await worker.kill9();
    expect(collector.hits("/v1/traces")).toBe(0);

    worker = await restartWrangler(worker, { dropVars: ["HW_FAILPOINT", "HW_FAILPOINT_URL"] });
    await collector.waitForHit("/v1/traces", { method: "POST", timeoutMs: 60_000 });
    api = createApi(worker.url, TOKEN);

    const hit = collector.log.find((h) => h.path === "/v1/traces")!;
    expect(hit.headers.authorization).toBe("Bearer tok-e2e");
    expect(hit.headers["content-type"]).toContain("application/json");
    const res = await api.raw("GET", `/v1/sessions/${session.id}/trace`);
    expect(res.status).toBe(200);
    const trace = await res.json();
    expect(JSON.parse(hit.body)).toEqual(trace);
    const spans = (trace as { resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[] }).resourceSpans[0]!
      .scopeSpans[0]!.spans;
    expect(spans[0]!.name).toBe("invoke_agent highwater");
    expect(spans.length).toBeGreaterThan(1);
    // The log was not touched by the export: it still verifies.
    expect((await api.verify(session.id)).ok).toBe(true);
  });
});
