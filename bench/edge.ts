/**
 * The edge benches of issue 11, each with its peer in the same run (`node bench/edge.mjs`):
 *
 * 1. ownership: 1 token, 200 sessions, concurrent `GET /v1/sessions/:id`, with the old path
 *    (the per-principal directory asked first, `HW_BENCH_DIRECTORY_LOOKUP=1` in bench/app.ts) against the new
 *    one (the session object alone checks its owner). Both Workers run side by side and the
 *    rounds alternate, so the machine's noise falls on both.
 * 2. replay: one session of 10,000 events read in full pages of 500 from the object
 *    (`Cache-Control: no-cache`) against the same pages from the Workers Cache API, alternating.
 *
 * Local `wrangler dev` runs every object in one workerd process; what it shows is the cost of
 * the extra hop, not the production hot spot (one object per token serializing every request).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makePersistDir, REPO_ROOT, startWrangler, type Wrangler } from "../test/e2e/harness/wrangler";
import { benchAppConfig } from "./app-config";

const TOKEN = "bench-edge-token";
const auth = { authorization: `Bearer ${TOKEN}` };

async function start(vars: Record<string, string>): Promise<Wrangler> {
  return startWrangler({
    persistTo: makePersistDir("hw-edge-bench-"),
    config: benchAppConfig("edge"),
    vars: { API_TOKENS: TOKEN, ...vars },
    env: { WRANGLER_SEND_METRICS: "false" },
  });
}

async function call(w: Wrangler, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${w.url}${path}`, { ...init, headers: { ...auth, ...(init.headers as Record<string, string>) } });
}

/** Runs `total` calls of `one` with `concurrency` in flight; latencies in ms. */
async function load(total: number, concurrency: number, one: (i: number) => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) {
        const s = performance.now();
        await one(i);
        latencies.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { rps: total / seconds, p50: q(0.5), p99: q(0.99) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

async function ownership(rounds: number) {
  const [before, after] = await Promise.all([start({ HW_BENCH_DIRECTORY_LOOKUP: "1" }), start({})]);
  try {
    const ids = new Map<Wrangler, string[]>();
    for (const w of [before, after]) {
      const list: string[] = [];
      await load(200, 8, async () => {
        const r = await call(w, "/v1/sessions", { method: "POST", body: "{}" });
        if (r.status !== 201) throw new Error(`create: ${r.status} ${await r.text()}`);
        list.push(((await r.json()) as { id: string }).id);
      });
      ids.set(w, list);
    }
    const read = (w: Wrangler) => async (i: number) => {
      const list = ids.get(w)!;
      const r = await call(w, `/v1/sessions/${list[(i * 7919) % list.length]}`);
      if (r.status !== 200) throw new Error(`read: ${r.status}`);
      await r.arrayBuffer();
    };
    // Warm both.
    await load(400, 32, read(before));
    await load(400, 32, read(after));
    const results = {
      before: [] as Awaited<ReturnType<typeof load>>[],
      after: [] as Awaited<ReturnType<typeof load>>[],
    };
    for (let r = 0; r < rounds; r++) {
      results.before.push(await load(2000, 32, read(before)));
      results.after.push(await load(2000, 32, read(after)));
    }
    const sum = (xs: Awaited<ReturnType<typeof load>>[]) => ({
      rps: round(median(xs.map((x) => x.rps))),
      p50Ms: round(median(xs.map((x) => x.p50)), 2),
      p99Ms: round(median(xs.map((x) => x.p99)), 2),
    });
    return {
      sessions: 200,
      tokens: 1,
      concurrency: 32,
      requestsPerRound: 2000,
      rounds,
      before: sum(results.before),
      after: sum(results.after),
    };
  } finally {
    await Promise.all([before.stop(), after.stop()]);
  }
}

async function replay(rounds: number) {
  const w = await start({});
  try {
    const r = await call(w, "/v1/sessions", { method: "POST", body: "{}" });
    const id = ((await r.json()) as { id: string }).id;
    // 9,999 PATCHes: each appends one stateDelta, so the log holds exactly 10,000 events.
    await load(9_999, 8, async (i) => {
      const p = await call(w, `/v1/sessions/${id}`, { method: "PATCH", body: JSON.stringify({ title: `t${i}` }) });
      if (p.status !== 200) throw new Error(`patch: ${p.status}`);
      await p.arrayBuffer();
    });
    const pass = async (fromObject: boolean) => {
      const t0 = performance.now();
      let events = 0;
      const states = new Set<string>();
      for (let after = 0; ; after += 500) {
        const res = await call(w, `/v1/sessions/${id}/events?after=${after}&limit=500`, {
          headers: fromObject ? { "cache-control": "no-cache" } : {},
        });
        const page = (await res.json()) as { events: unknown[] };
        events += page.events.length;
        if (page.events.length === 500) states.add(res.headers.get("x-hw-edge-cache") ?? "none");
        if (page.events.length < 500) break;
      }
      if (events !== 10_000) throw new Error(`replayed ${events} events`);
      return { ms: performance.now() - t0, states: [...states] };
    };
    await pass(true); // stores every full page
    const object: number[] = [];
    const cached: number[] = [];
    let seen: string[] = [];
    for (let i = 0; i < rounds; i++) {
      object.push((await pass(true)).ms);
      const c = await pass(false);
      cached.push(c.ms);
      seen = c.states;
    }
    if (seen.join() !== "hit") throw new Error(`cached pass was not all hits: ${seen.join()}`);
    const o = median(object);
    const c = median(cached);
    return {
      events: 10_000,
      pageSize: 500,
      rounds,
      fromObjectMs: round(o),
      fromCacheMs: round(c),
      objectOverCache: round(o / c, 2),
    };
  } finally {
    await w.stop();
  }
}

export async function main() {
  const started = new Date().toISOString();
  const result = { started, ownership: await ownership(5), replay: await replay(5) };
  console.log(JSON.stringify(result, null, 2));
  const out = join(REPO_ROOT, "bench", "results", "edge-latest.json");
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`highwater: wrote ${out}`);
}
