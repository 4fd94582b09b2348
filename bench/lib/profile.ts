/**
 * `HW_BENCH_ONLY=profile npm run bench`: where a step's time goes inside workerd. A V8 CPU
 * profile (Chrome DevTools protocol, through wrangler's inspector) of the bench Worker while it
 * runs whole turns of the per-step overhead bench and of the durable-step bench; prints the top
 * functions by self time and by inclusive time.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import WebSocket from "ws";

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
};
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

type Target = { webSocketDebuggerUrl: string; title?: string; id?: string };

/** A DevTools protocol session with the Worker's isolate (wrangler's inspector): `send` a method, `close`. */
async function inspect(inspectorPort: number) {
  const list = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as Target[];
  const target = list.find((t) => !/proxy|entry/i.test(t.title ?? "")) ?? list[0];
  if (!target) throw new Error("profile: no inspector target");
  return connect(target.webSocketDebuggerUrl);
}

/** A DevTools protocol session on one target's WebSocket. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    setTimeout(() => reject(new Error(`inspector: ${url} did not open`)), 5_000);
  });
  let next = 1;
  const waiting = new Map<number, (v: unknown) => void>();
  ws.on("message", (data) => {
    const msg = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (msg.id && waiting.has(msg.id)) {
      waiting.get(msg.id)!(msg.result);
      waiting.delete(msg.id);
    }
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

export async function withCpuProfile<T>(
  inspectorPort: number,
  run: () => Promise<T>,
): Promise<{ value: T; profile: Profile }> {
  const { send, close } = await inspect(inspectorPort);
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  const value = await run();
  const { profile } = (await send("Profiler.stop")) as { profile: Profile };
  close();
  return { value, profile };
}

/** The isolate's JS heap (bytes): in use and reserved, before and after a full collection. */
export type HeapAfterGc = { usedBefore: number; totalBefore: number; used: number; total: number };

/**
 * A full collection of the Worker's isolate and its JS heap before and after: what the Worker's
 * own objects retain. workerd runs the task V8 posts for `HeapProfiler.collectGarbage` only when
 * the isolate is next entered, so an idle Worker would never answer: `poke` (a request to the
 * Worker) is repeated every 100 ms until the collection is done. NaNs when the inspector does
 * not answer within `timeoutMs`.
 */
export async function jsHeapAfterGc(
  inspectorPort: number,
  poke: () => Promise<unknown>,
  timeoutMs = 20_000,
): Promise<HeapAfterGc> {
  return collect(await inspect(inspectorPort), poke, timeoutMs);
}

async function collect(
  { send, close }: Awaited<ReturnType<typeof connect>>,
  poke: () => Promise<unknown>,
  timeoutMs: number,
): Promise<HeapAfterGc> {
  const failed = { usedBefore: Number.NaN, totalBefore: Number.NaN, used: Number.NaN, total: Number.NaN };
  let done = false;
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs));
  type Usage = { usedSize?: number; totalSize?: number } | null;
  const poking = (async () => {
    while (!done) {
      await poke().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    const before = (await Promise.race([send("Runtime.getHeapUsage"), timeout])) as Usage;
    const after = (await Promise.race([
      send("HeapProfiler.collectGarbage").then(() => send("Runtime.getHeapUsage")),
      timeout,
    ])) as Usage;
    if (!before || !after) return failed;
    return {
      usedBefore: before.usedSize ?? Number.NaN,
      totalBefore: before.totalSize ?? Number.NaN,
      used: after.usedSize ?? Number.NaN,
      total: after.totalSize ?? Number.NaN,
    };
  } finally {
    done = true;
    await poking;
    close();
  }
}

/** The ports a process listens on at 127.0.0.1 (/proc/<pid>/net/tcp, matched to its socket fds). */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {}
  }
  const ports: number[] = [];
  for (const line of readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").slice(1)) {
    const f = line.trim().split(/\s+/);
    // local address, state 0A = LISTEN, inode
    if (f[3] === "0A" && f[1]?.startsWith("0100007F:") && inodes.has(f[9] ?? ""))
      ports.push(parseInt(f[1].slice(9), 16));
  }
  return ports;
}

/**
 * A full collection in each of wrangler's own isolates in the Worker's workerd (miniflare's
 * entry Worker and the assets router and proxy, every request passes through them), on
 * workerd's own inspector: their JS heaps are tiny, so V8 never collects them, while each
 * request leaves garbage there that holds native memory (about 4 KB a request); production has
 * none of them. The Worker's own isolate is collected through wrangler's inspector (`jsHeapAfterGc`).
 * Returns the isolates collected, "id used→used MB" each; an isolate a request does not enter is
 * skipped (its collection would wait for a request forever).
 */
export async function collectHelperIsolates(workerdPid: number, poke: () => Promise<unknown>): Promise<string[]> {
  const done: string[] = [];
  for (const port of listeningPorts(workerdPid)) {
    let list: Target[];
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(2_000) });
      list = (await res.json()) as Target[];
      if (!Array.isArray(list)) continue;
    } catch {
      continue;
    }
    for (const t of list) {
      if (!/^(core:entry|assets:(router|rpc-proxy):)/.test(t.id ?? "")) continue;
      try {
        const h = await collect(await connect(t.webSocketDebuggerUrl), poke, 10_000);
        done.push(`${t.id} ${(h.usedBefore / 1048576).toFixed(1)}→${(h.used / 1048576).toFixed(1)} MB`);
      } catch {}
    }
  }
  return done;
}

/** Self and inclusive sample time (ms) by function, top `n` of each. */
export function summarize(profile: Profile, n = 25): string {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const parent = new Map<number, number>();
  for (const x of profile.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
  const selfMs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  const key = (x: Node) => {
    const file = x.callFrame.url.split("/").slice(-2).join("/");
    return `${x.callFrame.functionName || "(anonymous)"} ${file}:${x.callFrame.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  let total = 0;
  for (const [id, ms] of selfMs) {
    total += ms;
    const node = byId.get(id)!;
    self.set(key(node), (self.get(key(node)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = key(byId.get(cur)!);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + ms);
    }
  }
  // For the heaviest self entries, the call paths their time comes from (three frames up).
  const paths = new Map<string, Map<string, number>>();
  for (const [id, ms] of selfMs) {
    const chain: string[] = [];
    for (let cur = parent.get(id); cur !== undefined && chain.length < 3; cur = parent.get(cur))
      chain.push(key(byId.get(cur)!).split(" ")[0]!);
    const k = key(byId.get(id)!);
    const m = paths.get(k) ?? new Map<string, number>();
    const via = chain.join(" ← ");
    m.set(via, (m.get(via) ?? 0) + ms);
    paths.set(k, m);
  }
  const top = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, ms]) => `  ${ms.toFixed(1).padStart(8)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join("\n");
  const heaviest = [...self.entries()]
    .filter(([k]) => !k.startsWith("(idle)") && !k.startsWith("(program)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, ms]) => {
      const via = [...(paths.get(k) ?? new Map<string, number>()).entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([v, t]) => `      ${t.toFixed(1).padStart(8)} ms  ← ${v}`)
        .join("\n");
      return `  ${ms.toFixed(1).padStart(8)} ms  ${k}\n${via}`;
    })
    .join("\n");
  return `sampled ${total.toFixed(1)} ms\nself time:\n${top(self)}\ninclusive time:\n${top(incl)}\nwhere the heaviest self time is spent from:\n${heaviest}`;
}
