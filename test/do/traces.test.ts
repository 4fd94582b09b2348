/**
 * docs/API.md#traces: `GET /trace` answers a turn's OTLP/JSON trace from the log, and with a
 * collector configured every closed turn reaches it through the outbox, retried by the alarm
 * until accepted. The collector is the object's outbound boundary (its `traceExporter` port).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/log";
import type { ModelProvider } from "../../src/model/types";
import { exportClosedTurns, outboxState, readTurnTrace, traceExportDue } from "../../src/telemetry/outbox";
import { buildTurnTrace } from "../../src/telemetry/spans";
import { withSession } from "./context-harness";
import { settledTo } from "./drive";
import { allEvents, api, createSession, expectError, highWaterOf } from "./helpers";
import { rowCounting } from "./row-counting";

const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromString(id));

async function turn(id: string, text: string) {
  const sent = await api(`/v1/sessions/${id}/messages`, { method: "POST", json: { text } });
  expect(sent.status).toBe(202);
  return settledTo(id, (s) => s.openTurn === false);
}

const spansOf = (body: any) => body.resourceSpans[0].scopeSpans[0].spans as any[];
const op = (span: any) => span.attributes.find((a: any) => a.key === "gen_ai.operation.name")?.value.stringValue;

describe("GET /v1/sessions/:id/trace", () => {
  it("answers the last closed turn by default, any turn by id, the same bytes every time", async () => {
    const s = await createSession({ title: "traced" });
    await turn(s.id, "write a haiku about logs");
    await turn(s.id, "and another one");
    const events = await allEvents(s.id);
    const turnIds = [...new Set(events.filter((e) => e.actions?.turnClose).map((e) => e.turnId as string))];
    expect(turnIds).toHaveLength(2);

    const last = await api(`/v1/sessions/${s.id}/trace`);
    expect(last.status).toBe(200);
    const traceId = sha256Hex(`trace:${s.id}:${turnIds[1]}`).slice(0, 32);
    expect(spansOf(last.body).every((x) => x.traceId === traceId)).toBe(true);

    const first = await api(`/v1/sessions/${s.id}/trace?turnId=${turnIds[0]}`);
    expect(first.status).toBe(200);
    const spans = spansOf(first.body);
    expect(spans.map(op).filter((o) => o === "invoke_agent")).toHaveLength(1);
    expect(spans.map(op)).toContain("chat");
    expect(spans.map(op)).toContain("execute_tool");
    // Only the first turn: every tool span is a call of that turn.
    const firstCalls = events
      .filter((e) => e.turnId === turnIds[0] && e.content?.type === "functionCall")
      .map((e) => e.content.callId);
    const traced = spans
      .filter((x) => op(x) === "execute_tool")
      .map((x) => x.attributes.find((a: any) => a.key === "gen_ai.tool.call.id").value.stringValue);
    expect(traced.sort()).toEqual(firstCalls.sort());
    const close = events.find((e) => e.turnId === turnIds[0] && e.actions?.turnClose);
    expect(spans[0].endTimeUnixNano).toBe(String(BigInt(Date.parse(close.at)) * 1_000_000n));

    const again = await api(`/v1/sessions/${s.id}/trace?turnId=${turnIds[0]}`);
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
  });

  it("404 for an unknown turn or a session with no closed turn, 400 for a malformed query; appends nothing", async () => {
    const s = await createSession({});
    expectError(await api(`/v1/sessions/${s.id}/trace`), 404, "not_found");
    await turn(s.id, "write a haiku about logs");
    const before = await highWaterOf(s.id);
    expectError(await api(`/v1/sessions/${s.id}/trace?turnId=00000000-0000-4000-8000-000000000000`), 404, "not_found");
    expectError(await api(`/v1/sessions/${s.id}/trace?turnId=${encodeURIComponent("no spaces!")}`), 400, "bad_request");
    expectError(await api(`/v1/sessions/${s.id}/trace?turn=1`), 400, "bad_request");
    expectError(await api(`/v1/sessions/${s.id}/trace`, { method: "POST" }), 405, "method_not_allowed");
    expectError(await api(`/v1/sessions/${s.id}/trace`, { token: "test-token-b" }), 404, "not_found");
    expect(await highWaterOf(s.id)).toBe(before);
  });
});

describe("the export outbox", () => {
  it("a collector that refuses twice then accepts gets the turn's trace, identical to GET /trace", async () => {
    const s = await createSession({ title: "exported" });
    const posts: { url: string; headers: Record<string, string>; body: string; status: number }[] = [];
    await runInDurableObject(stubOf(s.id), (instance) => {
      (instance as unknown as { traceExporter: () => unknown }).traceExporter = () => ({
        config: {
          url: "https://collector.test/v1/traces",
          headers: { "content-type": "application/json", "x-k": "v" },
        },
        fetch: async (url: string, init: RequestInit) => {
          const status = posts.length < 2 ? 503 : 200;
          posts.push({ url, headers: init.headers as Record<string, string>, body: String(init.body), status });
          return new Response(status === 200 ? "{}" : "unavailable", { status });
        },
      });
    });
    // The platform runs the alarm on its own (driving it by hand would fire a retry before its
    // time): wait, bounded, until the collector took the turn.
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "write a haiku about logs" } });
    for (let i = 0; i < 400 && !posts.some((p) => p.status === 200); i++) await new Promise((r) => setTimeout(r, 50));
    expect(posts.map((p) => p.status)).toEqual([503, 503, 200]);
    expect(posts[2]!.url).toBe("https://collector.test/v1/traces");
    expect(posts[2]!.headers["x-k"]).toBe("v");
    const trace = await api(`/v1/sessions/${s.id}/trace`);
    expect(posts[2]!.body).toBe(JSON.stringify(trace.body));
    // Every try sent the same trace: the same ids, so a duplicate is harmless.
    expect(new Set(posts.map((p) => p.body)).size).toBe(1);
    // Exported once accepted: nothing more is sent.
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "and another one" } });
    for (let i = 0; i < 400 && posts.length < 4; i++) await new Promise((r) => setTimeout(r, 50));
    expect(posts.map((p) => p.status)).toEqual([503, 503, 200, 200]);
    const second = await api(`/v1/sessions/${s.id}/trace`);
    expect(posts[3]!.body).toBe(JSON.stringify(second.body));
  });
});

describe("a backlog", () => {
  it("goes out a few turns per alarm, oldest first, and stays due until it is empty", async () => {
    const s = await createSession({});
    await turn(s.id, "write a haiku about logs");
    await turn(s.id, "and another one");
    const turnIds = [
      ...new Set((await allEvents(s.id)).filter((e) => e.actions?.turnClose).map((e) => e.turnId as string)),
    ];
    // No collector was configured while they ran; now one is, and both turns are owed.
    const result = await runInDurableObject(stubOf(s.id), async (_instance, state) => {
      const sent: { key: string; value: { stringValue?: string } }[][] = [];
      const ports = {
        sql: state.storage.sql,
        sessionId: s.id,
        config: { url: "https://collector.test/v1/traces", headers: {} },
        fetch: (async (_u: string, init: RequestInit) => {
          sent.push(JSON.parse(String(init.body)).resourceSpans[0].scopeSpans[0].spans[0].attributes);
          return new Response("{}", { status: 200 });
        }) as unknown as typeof fetch,
        now: () => 5_000,
        arm: async () => {},
        maxTurns: 1,
      };
      const first = await exportClosedTurns(ports);
      const dueBetween = traceExportDue(state.storage.sql, ports.config, 5_000);
      const second = await exportClosedTurns(ports);
      const dueAfter = traceExportDue(state.storage.sql, ports.config, 5_000);
      return { first, dueBetween, second, dueAfter, sent };
    });
    expect(result.first).toEqual({ sent: 1, refused: false });
    expect(result.dueBetween).toBe(5_000);
    expect(result.second).toEqual({ sent: 1, refused: false });
    expect(result.dueAfter).toBeNull();
    const turnOf = (attrs: { key: string; value: { stringValue?: string } }[]) =>
      attrs.find((a) => a.key === "highwater.turn.id")?.value.stringValue;
    expect(result.sent.map(turnOf)).toEqual(turnIds);
  });
});

describe("a turn closed by a stop", () => {
  it("is exported too, though no slice ran after it (the stop arms the outbox)", async () => {
    const s = await createSession({ approvals: [{ tool: "write_file" }] });
    const posts: string[] = [];
    await runInDurableObject(stubOf(s.id), (instance) => {
      (instance as unknown as { traceExporter: () => unknown }).traceExporter = () => ({
        config: { url: "https://collector.test/v1/traces", headers: {} },
        fetch: async (_url: string, init: RequestInit) => {
          posts.push(String(init.body));
          return new Response("{}", { status: 200 });
        },
      });
    });
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "remember the milk" } });
    await settledTo(s.id, (x) => x.status === "waiting_approval");
    expect((await api(`/v1/sessions/${s.id}/stop`, { method: "POST" })).status).toBe(200);
    for (let i = 0; i < 200 && posts.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(posts).toHaveLength(1);
    const trace = JSON.parse(posts[0]!);
    const root = spansOf(trace)[0];
    expect(root.attributes).toContainEqual({ key: "highwater.turn.outcome", value: { stringValue: "stopped" } });
    expect(trace).toEqual((await api(`/v1/sessions/${s.id}/trace`)).body);
  });
});

describe("a trace reads only its turn", () => {
  /** Rows SQLite visited to build the last turn's trace, through the object's own storage. */
  async function rowsReadForLastTrace(id: string): Promise<number> {
    return runInDurableObject(stubOf(id), (_instance, state) => {
      const counting = rowCounting(state.storage.sql);
      readTurnTrace(counting.sql, id, null);
      return counting.rowsRead();
    });
  }

  it("300 events before the turn cost it no more rows than none", async () => {
    const small = await createSession({ title: "small" });
    await turn(small.id, "write a haiku about logs");
    const large = await createSession({ title: "large" });
    for (let i = 0; i < 300; i++)
      expect((await api(`/v1/sessions/${large.id}`, { method: "PATCH", json: { title: `t${i}` } })).status).toBe(200);
    await turn(large.id, "write a haiku about logs");
    const [a, b] = [await rowsReadForLastTrace(small.id), await rowsReadForLastTrace(large.id)];
    expect(b).toBeLessThan(a + 10);
    // And the answer over HTTP is the same trace shape for both.
    const spans = spansOf((await api(`/v1/sessions/${large.id}/trace`)).body);
    expect(spans.length).toBe(spansOf((await api(`/v1/sessions/${small.id}/trace`)).body).length);
  });
});

describe("a recovered turn's trace, from the runtime's own events", () => {
  it("shows the takeover and the notice on the turn, and the re-issued call's lost attempt", async () => {
    const model = { provider: "openai" as const, name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };
    let reached: () => void = () => {};
    const firstCall = new Promise<void>((r) => {
      reached = r;
    });
    const lost: ModelProvider = {
      name: "openai",
      async *stream() {
        reached();
        await new Promise(() => {});
      },
    };
    const answering: ModelProvider = {
      name: "openai",
      async *stream() {
        yield { type: "text-delta", text: "done" };
        yield { type: "usage", inputTokens: 10, outputTokens: 2 };
        yield { type: "finish", reason: "stop" };
      },
    };
    await withSession({ provider: lost, model }, async (h) => {
      await h.runtime.postMessage({ text: "task", source: "http" });
      void h.runtime.alarm(); // the call never answers: the object dies with it
      await firstCall;
      const b = h.reopen(answering);
      for (let i = 0; i < 10 && b.summary?.openTurn; i++) await b.alarm();
      const events = h.events();
      const turnId = events.find((e) => e.actions?.turnClose)!.turnId!;
      const trace = buildTurnTrace(events, { sessionId: "s", turnId, serviceName: "highwater", model });
      const spans = spansOf(trace);
      expect(spans[0].events.map((e: { name: string }) => e.name)).toEqual([
        "highwater.recovery",
        "highwater.recovery_notice",
      ]);
      const chats = spans.filter((x) => op(x) === "chat");
      expect(chats).toHaveLength(1);
      expect(chats[0].events).toHaveLength(1);
      expect(chats[0].events[0].attributes).toContainEqual({ key: "error.type", value: { stringValue: "restart" } });
      expect(chats[0].attributes).toContainEqual({
        key: "gen_ai.response.finish_reasons",
        value: { arrayValue: { values: [{ stringValue: "stop" }] } },
      });
    });
  });
});

describe("a fork whose throughSeq falls inside a turn", () => {
  it("exports the copied turn (built from its events, it has no run) and every later one; GET /trace answers it; the alarm does not spin", async () => {
    const parent = await createSession({ title: "parent" });
    await turn(parent.id, "write a haiku about logs");
    const parentEvents = await allEvents(parent.id);
    const call = parentEvents.find((e) => e.content?.type === "functionCall");
    expect(call).toBeDefined();
    const forked = await api(`/v1/sessions/${parent.id}/fork`, { method: "POST", json: { throughSeq: call.seq } });
    expect(forked.status).toBe(201);
    const id = forked.body.id as string;
    const copied = (await allEvents(id)).find((e) => e.actions?.turnClose);
    expect(copied?.actions.turnClose.reason).toBe("stopped");

    // The copied turn has no run: its trace is still its events' trace.
    const trace = await api(`/v1/sessions/${id}/trace?turnId=${copied.turnId}`);
    expect(trace.status).toBe(200);
    const spans = spansOf(trace.body);
    expect(spans.map(op)[0]).toBe("invoke_agent");
    expect(spans.map(op)).toContain("execute_tool");
    expect(spans[0].attributes).toContainEqual({ key: "highwater.turn.outcome", value: { stringValue: "stopped" } });

    // A collector that refuses the first request for good (400), then accepts; alarm firings counted.
    const posts: { status: number; turnId: string }[] = [];
    let firings = 0;
    await runInDurableObject(stubOf(id), (instance) => {
      const alarm = instance.alarm.bind(instance);
      (instance as unknown as { alarm: () => Promise<void> }).alarm = () => {
        firings++;
        return alarm();
      };
      (instance as unknown as { traceExporter: () => unknown }).traceExporter = () => ({
        config: { url: "https://collector.test/v1/traces", headers: {} },
        fetch: async (_url: string, init: RequestInit) => {
          const status = posts.length === 0 ? 400 : 200;
          const root = JSON.parse(String(init.body)).resourceSpans[0].scopeSpans[0].spans[0];
          const turnId = root.attributes.find((a: any) => a.key === "highwater.turn.id").value.stringValue;
          posts.push({ status, turnId });
          return new Response(status === 200 ? "{}" : "bad", { status });
        },
      });
    });
    await turn(id, "and another one");
    const later = (await allEvents(id)).filter((e) => e.actions?.turnClose).at(-1).turnId;
    for (let i = 0; i < 200 && !posts.some((p) => p.status === 200); i++) await new Promise((r) => setTimeout(r, 50));
    expect(posts).toEqual([
      { status: 400, turnId: copied.turnId },
      { status: 200, turnId: later },
    ]);
    // Nothing more is owed: over two seconds the alarm fires at most once more.
    const before = firings;
    await new Promise((r) => setTimeout(r, 2_000));
    expect(firings - before).toBeLessThanOrEqual(1);
    expect(posts).toHaveLength(2);
    // The refusal is recorded, not retried.
    const state = await runInDurableObject(stubOf(id), (_i, s) => outboxState(s.storage.sql));
    expect(state.dropped).toEqual({
      count: 1,
      last: [expect.objectContaining({ turnId: copied.turnId, status: 400 })],
    });
  });
});

describe("a trace is built in bounded memory", () => {
  /** A SQL handle over `sql` that adds up the bytes of every string the statements answered. */
  function bytesCounting(sql: SqlStorage) {
    let bytes = 0;
    const counted = {
      exec(query: string, ...bindings: unknown[]) {
        const cursor = sql.exec(query, ...bindings);
        return {
          toArray() {
            const all = cursor.toArray();
            for (const row of all) for (const v of Object.values(row)) if (typeof v === "string") bytes += v.length;
            return all;
          },
        };
      },
    } as unknown as SqlStorage;
    return { sql: counted, bytes: () => bytes };
  }

  it("a turn holding 200 KiB of text is traced reading a small fraction of it: bodies stay out", async () => {
    const s = await createSession({});
    const text = `write a haiku about logs ${"x".repeat(200 * 1024)}`;
    await turn(s.id, text);
    const { read, trace } = await runInDurableObject(stubOf(s.id), (_i, state) => {
      const counting = bytesCounting(state.storage.sql);
      const trace = readTurnTrace(counting.sql, s.id, null);
      return { read: counting.bytes(), trace };
    });
    expect(read).toBeLessThan(32 * 1024);
    expect(JSON.stringify(trace)).not.toContain("xxxx");
    expect(trace).toEqual((await api(`/v1/sessions/${s.id}/trace`)).body);
  });
});

describe("the outbox follows the OTLP/HTTP rules", () => {
  /** Ports over the object's storage with a scripted collector; `sql` may be wrapped. */
  function portsOf(
    sessionId: string,
    sql: SqlStorage,
    answer: (n: number) => Response,
    extra: Record<string, unknown> = {},
  ) {
    const bodies: string[] = [];
    const order: string[] = [];
    return {
      bodies,
      order,
      ports: {
        sql,
        sessionId,
        config: { url: "https://collector.test/v1/traces", headers: {} },
        fetch: (async (_u: string, init: RequestInit) => {
          bodies.push(String(init.body));
          order.push("send");
          return answer(bodies.length);
        }) as unknown as typeof fetch,
        now: () => 10_000,
        arm: async () => {
          order.push("arm");
        },
        warn: () => {},
        ...extra,
      },
    };
  }

  it("a 413 drops the turn with its status and the next one goes out; a 429 waits its Retry-After", async () => {
    const s = await createSession({});
    await turn(s.id, "write a haiku about logs");
    await turn(s.id, "and another one");
    await turn(s.id, "and a third");
    const r = await runInDurableObject(stubOf(s.id), async (_i, state) => {
      const statuses = [413, 200, 429];
      const { ports, bodies } = portsOf(
        s.id,
        state.storage.sql,
        (n) => new Response("", { status: statuses[n - 1]!, headers: n === 3 ? { "retry-after": "30" } : {} }),
      );
      const result = await exportClosedTurns(ports);
      return { result, sends: bodies.length, state: outboxState(state.storage.sql) };
    });
    expect(r.result).toEqual({ sent: 1, refused: true });
    expect(r.sends).toBe(3);
    expect(r.state.dropped?.count).toBe(1);
    expect(r.state.dropped?.last[0]?.status).toBe(413);
    expect(r.state.retryAt).toBe(10_000 + 30_000);
  });

  it("a trace over the request limit goes in several requests that together are GET /trace's spans", async () => {
    const s = await createSession({});
    await turn(s.id, "write a haiku about logs");
    const whole = (await api(`/v1/sessions/${s.id}/trace`)).body;
    const limit = Math.floor(JSON.stringify(whole).length / 2);
    const bodies = await runInDurableObject(stubOf(s.id), async (_i, state) => {
      const x = portsOf(s.id, state.storage.sql, () => new Response("{}", { status: 200 }), { maxBytes: limit });
      expect(await exportClosedTurns(x.ports)).toEqual({ sent: 1, refused: false });
      return x.bodies;
    });
    expect(bodies.length).toBeGreaterThan(1);
    for (const b of bodies) expect(new TextEncoder().encode(b).length).toBeLessThanOrEqual(limit);
    expect(bodies.flatMap((b) => spansOf(JSON.parse(b)))).toEqual(spansOf(whole));
  });

  it("the retry is stored and armed before a trace is built; a build that fails drops that turn, recorded, and the next goes on", async () => {
    const s = await createSession({});
    await turn(s.id, "write a haiku about logs");
    await turn(s.id, "and another one");
    const r = await runInDurableObject(stubOf(s.id), async (_i, state) => {
      let builds = 0;
      const order: string[] = [];
      // The first turn's build fails (its event pages cannot be read); the second's works.
      const failing = {
        exec(query: string, ...bindings: unknown[]) {
          if (query.includes("json_remove") && builds++ === 0) {
            order.push(`build, outbox retry at ${outboxState(state.storage.sql).retryAt}`);
            throw new Error("disk says no");
          }
          return state.storage.sql.exec(query, ...bindings);
        },
      } as unknown as SqlStorage;
      const x = portsOf(s.id, failing, () => new Response("{}", { status: 200 }));
      x.ports.arm = async () => {
        order.push("arm");
      };
      const result = await exportClosedTurns(x.ports);
      return { result, order, state: outboxState(state.storage.sql) };
    });
    expect(r.order.slice(0, 2)).toEqual(["arm", "build, outbox retry at 11000"]);
    expect(r.result).toEqual({ sent: 1, refused: false });
    expect(r.state.dropped).toEqual({ count: 1, last: [expect.objectContaining({ status: "unbuildable" })] });
    expect(r.state.retryAt).toBeNull();
  });
});
