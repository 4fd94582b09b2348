/**
 * The edge (docs/API.md#sessions, docs/API.md#reading-a-session), each with its peer in the same run, driven
 * through the typed client:
 *
 * 1. ownership: 1 token, 200 sessions, concurrent `GET /v1/sessions/:id`, with the old path
 *    (the per-principal directory asked first, `HW_BENCH_DIRECTORY_LOOKUP=1` in bench/app.ts)
 *    against the new one (the session object alone checks its owner). Both Workers run side by
 *    side and the rounds alternate, so the machine's noise falls on both.
 * 2. replay: one session of 10,000 events read in full pages of 500 from the object
 *    (`Cache-Control: no-cache`) against the same pages from the Workers Cache API, alternating.
 *
 * Local `wrangler dev` runs every object in one workerd process; what it shows is the cost of
 * the extra hop, not the production hot spot (one object per token serializing every request).
 */
import WebSocket from "ws";
import { HighwaterClient, type WebSocketConstructor } from "../../src/client";
import { benchAppConfig } from "../lib/app-config";
import { scratchDir, TOKEN } from "../lib/bench";
import { QUIET_WRANGLER_ENV } from "../lib/procs";
import { clientFor } from "../lib/sockets";
import { fmt, percentile, type Report, stat } from "../lib/stats";
import { startWrangler, type Wrangler } from "../lib/wrangler";

type Load = { rps: number; p50: number; p99: number };
export type EdgeResults = {
  ownership: { sessions: number; concurrency: number; rounds: number; before: Load; after: Load };
  replay: { events: number; pageSize: number; rounds: number; fromObjectMs: number; fromCacheMs: number };
};

async function start(vars: Record<string, string>): Promise<Wrangler> {
  return startWrangler({
    persistTo: scratchDir("hw-edge-bench-"),
    config: benchAppConfig("edge"),
    vars: { API_TOKENS: TOKEN, ...vars },
    env: QUIET_WRANGLER_ENV,
  });
}

/** Runs `total` calls of `one` with `concurrency` in flight; latencies in ms. */
async function load(total: number, concurrency: number, one: (i: number) => Promise<void>): Promise<Load> {
  const ms: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) {
        const s = performance.now();
        await one(i);
        ms.push(performance.now() - s);
      }
    }),
  );
  return { rps: total / ((performance.now() - t0) / 1000), p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

const medianOf = (xs: Load[]): Load => ({
  rps: stat(xs.map((x) => x.rps)).median,
  p50: stat(xs.map((x) => x.p50)).median,
  p99: stat(xs.map((x) => x.p99)).median,
});

async function ownership(rounds: number): Promise<EdgeResults["ownership"]> {
  const [before, after] = await Promise.all([start({ HW_BENCH_DIRECTORY_LOOKUP: "1" }), start({})]);
  try {
    const ids = new Map<Wrangler, string[]>();
    for (const w of [before, after]) {
      const list: string[] = [];
      const client = clientFor(w.url);
      await load(200, 8, async () => void list.push((await client.createSession({})).id));
      ids.set(w, list);
    }
    const read = (w: Wrangler) => {
      const client = clientFor(w.url);
      const list = ids.get(w)!;
      return async (i: number) => void (await client.getSession(list[(i * 7919) % list.length]!));
    };
    // Warm both.
    await load(400, 32, read(before));
    await load(400, 32, read(after));
    const results = { before: [] as Load[], after: [] as Load[] };
    for (let r = 0; r < rounds; r++) {
      results.before.push(await load(2000, 32, read(before)));
      results.after.push(await load(2000, 32, read(after)));
    }
    return { sessions: 200, concurrency: 32, rounds, before: medianOf(results.before), after: medianOf(results.after) };
  } finally {
    await Promise.all([before.stop(), after.stop()]);
  }
}

async function replay(rounds: number): Promise<EdgeResults["replay"]> {
  const w = await start({});
  try {
    // A client whose fetch asks the object itself (no-cache), and one that records the edge's cache state.
    let cacheState = "none";
    const viaFetch = (noCache: boolean) =>
      new HighwaterClient({
        baseUrl: w.url,
        token: TOKEN,
        WebSocket: WebSocket as unknown as WebSocketConstructor,
        fetch: async (input, init) => {
          const headers = new Headers(init?.headers);
          if (noCache) headers.set("cache-control", "no-cache");
          const res = await fetch(input, { ...init, headers });
          cacheState = res.headers.get("x-hw-edge-cache") ?? "none";
          return res;
        },
      });
    const object = viaFetch(true);
    const edge = viaFetch(false);
    const id = (await object.createSession({})).id;
    // 9,999 PATCHes: each appends one stateDelta, so the log holds exactly 10,000 events.
    await load(9_999, 8, async (i) => void (await object.patchSession(id, { title: `t${i}` })));
    const pass = async (client: HighwaterClient) => {
      const t0 = performance.now();
      let events = 0;
      const states = new Set<string>();
      for (let after = 0; ; after += 500) {
        const page = await client.events(id, after, 500);
        events += page.events.length;
        if (page.events.length === 500) states.add(cacheState);
        if (page.events.length < 500) break;
      }
      if (events !== 10_000) throw new Error(`replayed ${events} events`);
      return { ms: performance.now() - t0, states: [...states] };
    };
    await pass(object); // stores every full page
    const fromObject: number[] = [];
    const fromCache: number[] = [];
    let seen: string[] = [];
    for (let i = 0; i < rounds; i++) {
      fromObject.push((await pass(object)).ms);
      const c = await pass(edge);
      fromCache.push(c.ms);
      seen = c.states;
    }
    if (seen.join() !== "hit") throw new Error(`cached pass was not all hits: ${seen.join()}`);
    return {
      events: 10_000,
      pageSize: 500,
      rounds,
      fromObjectMs: stat(fromObject).median,
      fromCacheMs: stat(fromCache).median,
    };
  } finally {
    await w.stop();
  }
}

export async function runEdge(rounds = 5): Promise<EdgeResults> {
  return { ownership: await ownership(rounds), replay: await replay(rounds) };
}

export function reportEdge(r: EdgeResults, { info }: Report): void {
  const { before, after } = r.ownership;
  info(
    `edge: GET /v1/sessions/:id, ${r.ownership.sessions} sessions, ${r.ownership.concurrency} in flight, req/s (owner in the object / directory first)`,
    `${fmt(after.rps, 0)} / ${fmt(before.rps, 0)}`,
    "",
    `p50 ${fmt(after.p50)} / ${fmt(before.p50)} ms; p99 ${fmt(after.p99)} / ${fmt(before.p99)} ms`,
  );
  info(
    `edge: replay of ${r.replay.events} events in pages of ${r.replay.pageSize}, ms (Cache API / the object)`,
    `${fmt(r.replay.fromCacheMs, 1)} / ${fmt(r.replay.fromObjectMs, 1)}`,
    "",
    `${fmt(r.replay.fromObjectMs / r.replay.fromCacheMs)}× faster from the cache`,
  );
}
