/**
 * WebSocket fan-out and the reconnect storm on the real app (docs/API.md#live-updates-over-a-websocket), driven
 * through the typed client: commit → client latency for 1 session × 50 clients and 20 × 5, every
 * event delivered in order; then 50 clients that drop their socket mid-turn and reconnect with
 * `after=`, each ending with every event exactly once (checked on the frames the server sent).
 */
import { rmSync } from "node:fs";
import { log, RUNS, scratchDir, sleep, TOKEN } from "../lib/bench";
import { type FakeOpenAI, startFakeOpenAI } from "../lib/fake-openai";
import { QUIET_WRANGLER_ENV } from "../lib/procs";
import { clientFor, exactlyTheLog, turnEnd, type Watcher, watch } from "../lib/sockets";
import { fmt, percentile, type Report, type Stat, span, stat } from "../lib/stats";
import { startWrangler, type Wrangler } from "../lib/wrangler";

type FanoutRun = { p50: number; p99: number; clients: number; inOrder: number; events: number; deliveries: number };
export type FanoutResults = {
  sessions: number;
  clients: number;
  runs: FanoutRun[];
  p50: Stat;
  p99: Stat;
  allInOrder: boolean;
};
export type StormResults = {
  clients: number;
  exactlyOnce: number;
  events: number;
  catchUp: { p50: number; p99: number };
};

async function fanoutOnce(w: Wrangler, sessions: number, perSession: number): Promise<FanoutRun> {
  const client = clientFor(w.url);
  const ids: string[] = [];
  for (let i = 0; i < sessions; i++) ids.push((await client.createSession({ title: `fan-${i}` })).id);
  const watchers = new Map<string, Watcher[]>();
  for (const id of ids)
    watchers.set(
      id,
      Array.from({ length: perSession }, () => watch(w.url, id)),
    );
  await Promise.all([...watchers.values()].flat().map((c) => c.ready));
  const starts = new Map<string, number>();
  await Promise.all(
    ids.map(async (id) => starts.set(id, (await client.sendMessage(id, "Plan a trip to Lisbon.")).seq)),
  );
  const latencies: number[] = [];
  let inOrder = 0;
  let deliveries = 0;
  let events = 0;
  for (const id of ids) {
    const highWater = await turnEnd(client, id);
    const page = await client.events(id, 0, 1000);
    events += highWater;
    for (const c of watchers.get(id)!) {
      for (let i = 0; i < 100 && (c.events.at(-1)?.seq ?? 0) < highWater; i++) await sleep(50);
      if (exactlyTheLog(c.events, page.events, highWater)) inOrder++;
      deliveries += c.events.length;
      for (const e of c.events) if (e.seq >= starts.get(id)!) latencies.push(e.recvAt - Date.parse(e.at));
    }
  }
  for (const c of [...watchers.values()].flat()) c.connection.close();
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    clients: sessions * perSession,
    inOrder,
    events,
    deliveries,
  };
}

export async function runFanout(): Promise<FanoutResults[]> {
  const persistTo = scratchDir("hw-bench-fanout-");
  const w = await startWrangler({ persistTo, vars: { API_TOKENS: TOKEN }, env: QUIET_WRANGLER_ENV });
  const out: FanoutResults[] = [];
  try {
    for (const [sessions, perSession] of [
      [1, 50],
      [20, 5],
    ] as const) {
      const runs: FanoutRun[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const r = await fanoutOnce(w, sessions, perSession);
        if (run > 0) runs.push(r);
        log(
          `fan-out ${sessions}×${perSession} run ${run}: p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.inOrder}/${r.clients} clients complete and in order`,
        );
      }
      out.push({
        sessions,
        clients: perSession,
        runs,
        p50: stat(runs.map((r) => r.p50)),
        p99: stat(runs.map((r) => r.p99)),
        allInOrder: runs.every((r) => r.inOrder === r.clients),
      });
    }
  } finally {
    await w.stop();
    rmSync(persistTo, { recursive: true, force: true });
  }
  return out;
}

/**
 * 50 clients on one session; while its turn runs (a fake model that answers six no-op tool
 * calls, 150 ms apart, then streams its text), all of them drop their socket at once and
 * reconnect with `after` = the last seq each saw.
 */
export async function runStorm(clients = 50): Promise<StormResults> {
  let requests = 0;
  const fake: FakeOpenAI = await startFakeOpenAI(() =>
    ++requests % 7 !== 0
      ? { toolCalls: [{ name: "list_files", args: {} }], delayMs: 150 }
      : { text: "All done, the storm is over. ".repeat(8), chunkDelayMs: 30 },
  );
  const persistTo = scratchDir("hw-bench-storm-");
  const vars = { API_TOKENS: TOKEN, MODEL_BASE_URL: fake.url, MODEL_API_KEY: "x", MODEL_NAME: "fake-model" };
  const w = await startWrangler({ persistTo, vars, env: QUIET_WRANGLER_ENV });
  try {
    const client = clientFor(w.url);
    const id = (await client.createSession({ title: "storm" })).id;
    const first = Array.from({ length: clients }, () => watch(w.url, id));
    await Promise.all(first.map((c) => c.ready));
    await client.sendMessage(id, "Weather the storm.");
    // Mid-turn: once every client has seen the first model request.
    for (let i = 0; i < 200 && first.some((c) => c.events.length < 3); i++) await sleep(20);
    const catchUp: number[] = [];
    const second = first.map((c) => {
      c.connection.close();
      const t0 = Date.now();
      const again = watch(w.url, id, { after: c.events.at(-1)?.seq ?? 0 });
      again.ready.then(() => catchUp.push(Date.now() - t0));
      return again;
    });
    await Promise.all(second.map((c) => c.ready));
    const highWater = await turnEnd(client, id);
    const page = await client.events(id, 0, 1000);
    let exactlyOnce = 0;
    for (let i = 0; i < clients; i++) {
      const a = first[i]!;
      const b = second[i]!;
      for (let j = 0; j < 100 && (b.events.at(-1)?.seq ?? a.events.at(-1)?.seq ?? 0) < highWater; j++) await sleep(50);
      if (exactlyTheLog([...a.events, ...b.events], page.events, highWater)) exactlyOnce++;
    }
    for (const c of second) c.connection.close();
    return {
      clients,
      exactlyOnce,
      events: highWater,
      catchUp: { p50: percentile(catchUp, 50), p99: percentile(catchUp, 99) },
    };
  } finally {
    await w.stop();
    await fake.close();
    rmSync(persistTo, { recursive: true, force: true });
  }
}

export function reportFanout(fo: FanoutResults[], storm: StormResults, { info, target }: Report): void {
  for (const f of fo) {
    const events = f.runs.at(-1)!.events;
    info(`fan-out ${f.sessions}×${f.clients}: commit → client latency p50, ms (wall)`, span(f.p50, 0));
    info(`fan-out ${f.sessions}×${f.clients}: commit → client latency p99, ms (wall)`, span(f.p99, 0));
    target(
      `fan-out ${f.sessions} session(s) × ${f.clients} clients: every event, in order`,
      f.runs.map((r) => `${r.inOrder}/${r.clients}`).join(" "),
      `${events} events/run`,
      "all clients, all runs",
      f.allInOrder,
    );
  }
  // Fails if a socket's catch-up replay and the live pump overlap (a duplicate) or leave a gap.
  info(
    `reconnect storm: ${storm.clients} clients reconnect with after= mid-turn, ready after, ms p50 / p99 (wall)`,
    `${fmt(storm.catchUp.p50, 0)} / ${fmt(storm.catchUp.p99, 0)}`,
  );
  target(
    `reconnect storm: ${storm.clients} clients, every event exactly once, in order`,
    `${storm.exactlyOnce}/${storm.clients}`,
    `${storm.events} events`,
    "all clients",
    storm.exactlyOnce === storm.clients,
  );
}
