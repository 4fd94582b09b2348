/**
 * Recovery by effect against a real MCP server process (docs/design.md#recovery): for each effect
 * (`read` lookup, `idempotent` upsert, `write` send) and each tool boundary (F4 dispatched not
 * sent, F5 in flight at the server, F6 answered but T2 not committed), a real `wrangler dev` is
 * killed with SIGKILL at the boundary and restarted on the same persist dir with no request. The
 * server counts every call with its idempotency key.
 *
 *   npx vitest run --project e2e test/e2e/crash-mcp.test.ts
 *   MCP_CRASH_ONLY=F5 …   only these boundaries
 *
 * The crash table (effect × kill point → calls seen, keys, status) is printed at the end.
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type FakeMcpServer, startFakeMcpServer } from "../fakes/start-mcp-server";
import { limiter } from "./crash/run-case";
import { createApi, type Event } from "./harness/api";
import { type FakeOpenAI, scriptedAgent, startFakeOpenAI } from "./harness/fake-openai";
import { makePersistDir, startFailpointSink, startWrangler, type Wrangler } from "./harness/wrangler";

const TOKEN = "mcp-crash-token";
type Effect = "read" | "idempotent" | "write";
type Point = "F4" | "F5" | "F6";
const TOOL: Record<Effect, { name: string; args: Record<string, unknown> }> = {
  read: { name: "lookup", args: { id: "A-7" } },
  idempotent: { name: "upsert", args: { id: "A-7", value: "shipped" } },
  write: { name: "send", args: { to: "ops", text: "order A-7 shipped" } },
};

type Row = {
  effect: Effect;
  point: Point;
  calls: number;
  keys: string[];
  dispatchKey: string;
  effects: number | null;
  status: string;
  recovery: string | null;
};
const rows: Row[] = [];
const only = process.env.MCP_CRASH_ONLY?.split(",");
const run = limiter(2);

async function crashCase(effect: Effect, point: Point): Promise<{ row: Row; events: Event[] }> {
  const cleanups: (() => unknown)[] = [];
  let worker: Wrangler | undefined;
  try {
    const mcp: FakeMcpServer = await startFakeMcpServer();
    cleanups.push(() => mcp.close());
    const tool = TOOL[effect];
    // F5: the call stays at the server for 2 s, so the kill finds it in flight.
    const args = point === "F5" ? { ...tool.args, sleepMs: 2000 } : tool.args;
    const fake: FakeOpenAI = await startFakeOpenAI(
      scriptedAgent([{ toolCalls: [{ name: `fake__${tool.name}`, args }] }, { text: "done" }]),
    );
    cleanups.push(() => fake.close());
    const sink = await startFailpointSink();
    cleanups.push(() => sink.close());
    const persistTo = makePersistDir("hw-mcp-crash-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    const vars = {
      API_TOKENS: TOKEN,
      MODEL_PROVIDER: "openai",
      MODEL_BASE_URL: fake.url,
      MODEL_API_KEY: "x",
      MODEL_NAME: "fake-model",
      HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
      MCP_SERVERS: JSON.stringify([{ name: "fake", url: mcp.url, trust: "annotations" }]),
    };
    worker = await startWrangler({ persistTo, vars: { ...vars, HW_FAILPOINT: point, HW_FAILPOINT_URL: sink.url } });
    let api = createApi(worker.url, TOKEN);
    const session = await api.createSession({ title: `mcp crash ${effect} ${point}` });
    void api.sendMessage(session.id, `use fake__${tool.name}`).catch(() => null);
    await sink.waitFor(point, 60_000);
    const before = (await mcp.calls()).calls.length;
    await worker.kill9();
    if (point === "F4") expect(before).toBe(0);
    if (point !== "F4") expect(before).toBe(1);
    worker = await startWrangler({ ...worker.options, vars, port: undefined, inspectorPort: undefined });
    api = createApi(worker.url, TOKEN);
    const done = await api.waitForIdle(session.id, { timeoutMs: 90_000, allowFailed: true });
    expect((await api.verify(session.id)).ok).toBe(true);
    const seen = await mcp.calls();
    const events = done.events;
    const dispatch = events.find((e) => e.actions?.toolDispatch)?.actions?.toolDispatch as {
      effect: string;
      idempotencyKey: string;
    };
    const response = events.find((e) => e.content?.type === "functionResponse");
    const row: Row = {
      effect,
      point,
      calls: seen.calls.length,
      keys: seen.calls.map((c) => c.key ?? "none"),
      dispatchKey: dispatch.idempotencyKey,
      effects: effect === "idempotent" ? seen.effects.upsert : effect === "write" ? seen.effects.send : null,
      status: (response?.content as { status: string } | undefined)?.status ?? "none",
      recovery: (response?.actions?.toolRecovery as { strategy: string } | undefined)?.strategy ?? null,
    };
    expect(dispatch.effect).toBe(effect);
    expect(done.session.status).toBe("idle");
    return { row, events };
  } finally {
    await worker?.stop().catch(() => undefined);
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  }
}

const CASES: [Effect, Point][] = (["read", "idempotent", "write"] as Effect[]).flatMap((e) =>
  (["F4", "F5", "F6"] as Point[]).filter((p) => !only || only.includes(p)).map((p): [Effect, Point] => [e, p]),
);

describe.concurrent("MCP calls killed at a tool boundary recover by their effect", () => {
  it.each(CASES)(
    "%s killed at %s",
    async (effect, point) => {
      const { row } = await run(() => crashCase(effect, point));
      rows.push(row);
      // Every call the server saw carried the key recorded at dispatch.
      for (const k of row.keys) expect(k).toBe(row.dispatchKey);
      expect(row.dispatchKey).toMatch(/^hw_[0-9a-f]{32}$/);
      if (effect === "write") {
        expect(row).toMatchObject({ status: "interrupted", recovery: "interrupted" });
        // Never sent again: at F4 not at all, at F5 and F6 once.
        expect(row.calls).toBe(point === "F4" ? 0 : 1);
      } else {
        expect(row).toMatchObject({ status: "ok", recovery: "rerun" });
        expect(row.calls).toBe(point === "F4" ? 1 : 2);
        // The idempotent tool saw its key twice and acted once.
        if (effect === "idempotent") expect(row.effects).toBe(1);
      }
      // From the start of the concurrent block, the wait for a slot included: nine cases, two at a
      // time, each two `wrangler dev` starts (a case took 93–174 s beside a full benchmark).
    },
    900_000,
  );
});

afterAll(() => {
  const order = (r: Row) => `${["read", "idempotent", "write"].indexOf(r.effect)}${r.point}`;
  const lines = [...rows]
    .sort((a, b) => order(a).localeCompare(order(b)))
    .map(
      (r) =>
        `| ${r.effect} | ${r.point} | ${r.calls} | ${r.keys.length === 0 ? "—" : `${r.keys.length}× ${r.keys[0]}`} | ${r.effects ?? "—"} | ${r.status} | ${r.recovery ?? "—"} |`,
    );
  console.log(
    [
      "MCP crash table (effect × kill point → calls seen by the server, keys, effects, response)",
      "| effect | kill | calls | keys | effects | status | toolRecovery |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...lines,
    ].join("\n"),
  );
});
