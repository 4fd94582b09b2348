/**
 * Restart (docs/design.md#5-recovery): the real app under `wrangler dev`, a model call hanging
 * mid-stream, kill -9 of the process group, a restart on the same --persist-to, and the time until
 * the fake provider receives the continued call; driven through the typed client.
 */

import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { benchAppConfig } from "../lib/app-config";
import { log, RUNS, scratchDir, sleep, TOKEN } from "../lib/bench";
import { type FakeOpenAI, startFakeOpenAI } from "../lib/fake-openai";
import { QUIET_WRANGLER_ENV } from "../lib/procs";
import { clientFor } from "../lib/sockets";
import { fmt, type Report, type Stat, span, stat } from "../lib/stats";
import { freePort, startWrangler } from "../lib/wrangler";

/** Polls /healthz every 20 ms until it answers 200: the moment a (re)started app is ready. */
async function firstHealthy(url: string, stop: AbortSignal): Promise<number> {
  while (!stop.aborted) {
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.ok) return Date.now();
    } catch {}
    await sleep(20);
  }
  return Number.NaN;
}

export type RestartResults = { fromConstruct: Stat; fromReady: Stat; fromSpawn: Stat; completed: number; runs: number };

/**
 * RUNS crash cycles on one app and one --persist-to: a message whose model call hangs
 * mid-stream, kill -9 of the whole process group while it hangs, a restart, and the time
 * until the fake provider receives the continued call. The fake hangs every even-numbered
 * request and answers every odd one (the continuation), so each cycle starts idle.
 */
export async function runRestart(): Promise<RestartResults> {
  const fromConstruct: number[] = [];
  const fromReady: number[] = [];
  const fromSpawn: number[] = [];
  let completed = 0;
  const fake: FakeOpenAI = await startFakeOpenAI((_body, index) =>
    index % 2 === 0 ? { text: "never finishes", hangAfterChunks: 2 } : { text: "continued after the restart" },
  );
  const persistTo = scratchDir("hw-bench-restart-");
  // Where the session object reports when it was constructed (bench/app.ts, HW_BENCH_CLOCK_URL).
  const clocks: number[] = [];
  const clockServer = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      clocks.push(Number(body));
      res.end("ok");
    });
  });
  await new Promise<void>((r) => clockServer.listen(0, "127.0.0.1", () => r()));
  const clockUrl = `http://127.0.0.1:${(clockServer.address() as AddressInfo).port}/clock`;
  const vars = {
    API_TOKENS: TOKEN,
    MODEL_BASE_URL: fake.url,
    MODEL_API_KEY: "x",
    MODEL_NAME: "fake-model",
    HW_BENCH_CLOCK_URL: clockUrl,
  };
  const config = benchAppConfig("restart");
  let w = await startWrangler({ persistTo, config, vars, env: QUIET_WRANGLER_ENV });
  try {
    const id = (await clientFor(w.url).createSession({ title: "restart" })).id;
    for (let run = 0; run < RUNS; run++) {
      await clientFor(w.url).sendMessage(id, `Summarize the plan (${run}).`);
      await fake.waitForRequests(2 * run + 1, 60_000);
      await w.kill9();
      // Same machine, same --persist-to; the port is ours so that we can watch it come up.
      const port = await freePort();
      let inspectorPort = await freePort();
      while (inspectorPort === port) inspectorPort = await freePort();
      const watching = new AbortController();
      clocks.length = 0;
      const spawnedAt = Date.now();
      const healthy = firstHealthy(`http://127.0.0.1:${port}`, watching.signal);
      w = await startWrangler({ persistTo, config, vars, port, inspectorPort, env: QUIET_WRANGLER_ENV });
      const readyAt = await healthy;
      watching.abort();
      const continued = (await fake.waitForRequests(2 * run + 2, 60_000))[2 * run + 1]!;
      // The session object's constructor on the new process reports its own Date.now() (HW_BENCH_CLOCK_URL).
      for (let i = 0; i < 100 && clocks.length === 0; i++) await sleep(50);
      const constructedAt = clocks[0] ?? Number.NaN;
      fromConstruct.push(continued.at - constructedAt);
      fromReady.push(continued.at - readyAt);
      fromSpawn.push(continued.at - spawnedAt);
      for (let i = 0; i < 300; i++) {
        const s = await clientFor(w.url).getSession(id);
        if (!s.openTurn) {
          if (s.status === "idle") completed++;
          break;
        }
        await sleep(100);
      }
      log(
        `restart ${run + 1}: continued call ${fromConstruct.at(-1)} ms after the object's constructor, ${fromReady.at(-1)} ms after /healthz, ${fromSpawn.at(-1)} ms after spawn`,
      );
    }
  } finally {
    await w.stop();
    await fake.close();
    clockServer.close();
    rmSync(persistTo, { recursive: true, force: true });
  }
  return {
    fromConstruct: stat(fromConstruct),
    fromReady: stat(fromReady),
    fromSpawn: stat(fromSpawn),
    completed,
    runs: RUNS,
  };
}

export function reportRestart(rs: RestartResults, { info, target }: Report): void {
  // restart. Fails if the woken object takes > 2 s from its constructor to the continued model
  // call (a slow takeover, a lost alarm that waits for the lease, a retry backoff on restart).
  target(
    "restart: object constructor → continued model call, ms (wall, object's clock → fake provider)",
    span(rs.fromConstruct, 0),
    `spawn→call ${fmt(rs.fromSpawn.median, 0)} ms; /healthz→call ${fmt(rs.fromReady.median, 0)} ms`,
    "median < 2000",
    rs.fromConstruct.median >= 0 && rs.fromConstruct.median < 2000 && rs.completed === rs.runs,
  );
  info("  turns completed after the restart", `${rs.completed}/${rs.runs}`);
}
