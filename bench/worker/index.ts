/**
 * The bench Worker (bench/wrangler.bench.toml): Durable Objects that run our real log code
 * and the peers side by side in one workerd, driven over HTTP by bench/runner.ts (bench/lib/bench.ts). One file per object class.
 *
 * Timing: every call answers only after its writes are durable (the output gate holds the
 * reply until the implicit transaction commits), so the runner times whole batches from
 * Node, commit included (wall clock, and the CPU time of this Worker's workerd process),
 * and subtracts an empty call to the same object. The in-object clock is reported too, as
 * a cross-check: local workerd advances `performance.now()` during synchronous code (the
 * Spectre freeze is a production behaviour), but only by whole milliseconds, and the
 * window it sees ends before the commit.
 */

import type { BenchBytes } from "./bytes";
import type { BenchLog } from "./log";
import type { BenchAgentsSessions, BenchChat } from "./peers";
import type { BenchSession } from "./session";

export { BenchBytes } from "./bytes";
export { BenchLog } from "./log";
export { BenchAgentsSessions, BenchChat } from "./peers";
export { BenchSession } from "./session";

export type BenchEnv = Env & {
  BENCH_LOG: DurableObjectNamespace<BenchLog>;
  BENCH_SESSION: DurableObjectNamespace<BenchSession>;
  BENCH_AGENTS: DurableObjectNamespace<BenchAgentsSessions>;
  BENCH_CHAT: DurableObjectNamespace<BenchChat>;
  BENCH_BYTES: DurableObjectNamespace<BenchBytes>;
};

// ------------------------------------------------------------------------------------------

const NAMESPACES = ["BENCH_LOG", "BENCH_SESSION", "BENCH_AGENTS", "BENCH_CHAT", "BENCH_BYTES"] as const;
type CallBody = { ns: (typeof NAMESPACES)[number]; name: string; method: string; args?: unknown[]; repeat?: number };

/**
 * `POST /call {ns, name, method, args, repeat?}` → the method's answer as JSON, and the
 * Worker's time around the awaited RPC(s) (`repeat` sequential calls); errors as 500.
 */
export default {
  async fetch(request: Request, env: BenchEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return Response.json({ ok: true });
    if (url.pathname !== "/call" || request.method !== "POST") return new Response("not found", { status: 404 });
    const body = (await request.json()) as CallBody;
    if (!NAMESPACES.includes(body.ns)) return new Response("unknown namespace", { status: 400 });
    const stub = env[body.ns].getByName(body.name) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const t0 = performance.now();
    try {
      let value: unknown;
      for (let i = 0; i < (body.repeat ?? 1); i++) value = await stub[body.method]!(...(body.args ?? []));
      return Response.json({ ok: true, value, workerMs: performance.now() - t0 });
    } catch (err) {
      return Response.json({ ok: false, error: String(err), workerMs: performance.now() - t0 }, { status: 500 });
    }
  },
} satisfies ExportedHandler<BenchEnv>;
