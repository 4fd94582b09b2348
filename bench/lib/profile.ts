/**
 * `HW_BENCH_ONLY=profile npm run bench`: where a step's time goes inside workerd. A V8 CPU
 * profile (Chrome DevTools protocol, through wrangler's inspector) of the bench Worker while it
 * runs whole turns of the per-step overhead bench and of the durable-step bench; prints the top
 * functions by self time and by inclusive time.
 */
import WebSocket from "ws";

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
};
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** A DevTools protocol session with the Worker's isolate (wrangler's inspector): `send` a method, `close`. */
async function inspect(inspectorPort: number) {
  const list = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as {
    webSocketDebuggerUrl: string;
    title?: string;
  }[];
  const target = list.find((t) => !/proxy|entry/i.test(t.title ?? "")) ?? list[0];
  if (!target) throw new Error("profile: no inspector target");
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
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
  const failed = { usedBefore: Number.NaN, totalBefore: Number.NaN, used: Number.NaN, total: Number.NaN };
  const { send, close } = await inspect(inspectorPort);
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
