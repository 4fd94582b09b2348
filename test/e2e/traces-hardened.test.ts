/**
 * docs/API.md#sending-traces-to-a-collector on a real `wrangler dev`, everything at once: a fork
 * whose throughSeq falls inside a turn, a collector that refuses one turn for good (400), and a
 * stray `%` in OTEL_EXPORTER_OTLP_HEADERS. With the bad setting, export is off (said once in the
 * log and in /healthz) and turns run; once it is fixed, every turn the collector does not refuse
 * arrives (the refused one is dropped, not retried), and then nothing more is sent.
 */

import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createApi } from "./harness/api";
import { makePersistDir, restartWrangler, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "e2e-traces-hardened";

type Post = { url: string; authorization: string | undefined; turnId: string; status: number };

/** A collector that answers 400 to its first request and 200 to every other. */
async function startCollector(): Promise<{ url: string; posts: Post[]; close: () => Promise<void> }> {
  const posts: Post[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const status = posts.length === 0 ? 400 : 200;
      const root = JSON.parse(Buffer.concat(chunks).toString("utf8")).resourceSpans[0].scopeSpans[0].spans[0];
      const turnId = root.attributes.find((a: { key: string }) => a.key === "highwater.turn.id").value.stringValue;
      posts.push({ url: req.url ?? "", authorization: req.headers.authorization, turnId, status });
      res.writeHead(status, { "content-type": "application/json" }).end(status === 200 ? "{}" : '{"message":"bad"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("trace export, hardened", () => {
  let worker: Wrangler | undefined;
  let collector: Awaited<ReturnType<typeof startCollector>> | undefined;
  const persistTo = makePersistDir("hw-e2e-traces-hardened-");

  afterAll(async () => {
    await worker?.stop();
    await collector?.close();
    rmSync(persistTo, { recursive: true, force: true });
  });

  it("a fork inside a turn, a 400 and a stray % at once: turns run, every later turn is exported, then quiet", async () => {
    collector = await startCollector();
    worker = await startWrangler({
      persistTo,
      vars: {
        API_TOKENS: TOKEN,
        MODEL_PROVIDER: "demo",
        OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/otlp?tenant=a`,
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer 100%",
      },
    });
    let api = createApi(worker.url, TOKEN);
    const health = await (await fetch(`${worker.url}/healthz`)).json();
    expect(health).toEqual({
      ok: true,
      traceExport: { on: false, reason: "OTEL_EXPORTER_OTLP_HEADERS: pair 1: the value is not valid percent-encoding" },
    });

    // Turns run with the bad setting; a fork is taken inside the parent's turn.
    const parent = await api.createSession({ title: "parent" });
    await api.sendMessage(parent.id, "write a haiku about logs");
    const { events } = await api.waitFor(parent.id, (s) => !s.openTurn);
    const inside = events.find((e) => e.turnId && !e.actions?.turnClose && e.seq > 1)!;
    const forked = await api.raw("POST", `/v1/sessions/${parent.id}/fork`, { throughSeq: inside.seq });
    expect(forked.status).toBe(201);
    const fork = (await forked.json()) as { id: string };
    await api.sendMessage(fork.id, "and another one");
    await api.waitFor(fork.id, (s) => !s.openTurn);
    await sleep(2_000);
    expect(collector.posts).toEqual([]);
    expect(worker.logs().split("highwater: trace export is off").length - 1).toBe(1);
    expect(worker.logs()).not.toContain("100%");

    // The setting is fixed: the outbox is the log, so the owed turns go out, oldest first.
    worker = await restartWrangler(worker, { vars: { OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer tok%20e2e" } });
    api = createApi(worker.url, TOKEN);
    expect(await (await fetch(`${worker.url}/healthz`)).json()).toEqual({ ok: true, traceExport: { on: true } });
    await api.sendMessage(fork.id, "a third one");
    const after = await api.waitFor(fork.id, (s) => !s.openTurn);
    const turns = [...new Set(after.events.filter((e) => e.actions?.turnClose).map((e) => e.turnId!))];
    expect(turns).toHaveLength(3);
    const deadline = Date.now() + 60_000;
    while (collector.posts.length < 3 && Date.now() < deadline) await sleep(200);
    // The fork's copied turn (no run of its own) is refused for good and dropped; the rest arrive.
    expect(collector.posts.map((p) => [p.turnId, p.status])).toEqual([
      [turns[0], 400],
      [turns[1], 200],
      [turns[2], 200],
    ]);
    for (const p of collector.posts) {
      expect(p.url).toBe("/otlp/v1/traces?tenant=a");
      expect(p.authorization).toBe("Bearer tok e2e");
    }
    // What arrived is what GET /trace says; the copied turn has its trace too.
    const last = await api.raw("GET", `/v1/sessions/${fork.id}/trace`);
    expect(last.status).toBe(200);
    expect((await api.raw("GET", `/v1/sessions/${fork.id}/trace?turnId=${turns[0]}`)).status).toBe(200);

    // Nothing is owed any more: nothing is sent again, the refused turn included.
    await sleep(5_000);
    expect(collector.posts).toHaveLength(3);
    expect(worker.logs()).not.toContain("trace export failed");
    expect((await api.getSession(fork.id)).openTurn).toBe(false);
    expect((await api.verify(fork.id)).ok).toBe(true);
  });
});
