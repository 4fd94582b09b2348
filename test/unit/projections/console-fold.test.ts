/**
 * The console's fold (ui/src/fold.ts): the transcript is the server's own `TranscriptFold`, folded
 * event by event; beside it, change counters, tool timings, effects and sources (the latest
 * `stateDelta.toolset`, the latest `stateDelta.a2aAgents`), timeline spans and closed turns. And the delta buffers of
 * docs/API.md#websocket (a retry replaces the failed attempt's text, a replay replaces the buffer).
 */
import { describe, expect, it } from "vitest";
import { buildTranscript } from "../../../src/projections";
import { applyDelta, SessionFold, type Streamed } from "../../../ui/src/fold";
import { type LogBuilder, newLog, prng } from "../support/fixtures";

function demoLike(ev: LogBuilder, n: number) {
  ev.user(`task ${n}`);
  ev.modelRequest();
  ev.modelThinking("hmm");
  ev.modelCall(`c${n}`, "write_file", { path: "a", content: "b" });
  ev.permissionRequest(`c${n}`);
  ev.permissionDecision(`apr_c${n}`, "approve");
  ev.dispatch(`c${n}`, "write");
  ev.response(`c${n}`, n % 3 === 0 ? "error" : "ok");
  ev.modelRequest();
  ev.modelText("done");
  ev.turnClose("completed");
}

describe("SessionFold", () => {
  it("folded one event at a time, it shows exactly the server's transcript", () => {
    const ev = newLog();
    ev.created();
    for (let i = 0; i < 5; i++) demoLike(ev, i);
    ev.recoveryNotice(["c1"], []);
    ev.error("model_failed", "gave up");
    const fold = new SessionFold();
    for (const e of ev.events) fold.add(e);
    expect(fold.items).toEqual(buildTranscript(ev.events));
  });

  it("an event at or below the last seq changes nothing", () => {
    const ev = newLog();
    ev.created();
    demoLike(ev, 1);
    const fold = new SessionFold();
    for (const e of ev.events) fold.add(e);
    const before = fold.items.length;
    expect(fold.add(ev.events[3]!)).toBe(false);
    expect(fold.items).toHaveLength(before);
  });

  it("a changed tool item gets a new rev; an unchanged one keeps it; the call keeps its timing and effect", () => {
    const ev = newLog();
    ev.created();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", { path: "a" });
    const fold = new SessionFold();
    for (const e of ev.events) fold.add(e);
    const tool = fold.items.find((i) => i.kind === "tool")!;
    const user = fold.items.find((i) => i.kind === "message")!;
    const [r0, u0] = [fold.rev(tool), fold.rev(user)];
    fold.add(ev.dispatch("c1", "idempotent"));
    fold.add(ev.response("c1", "ok"));
    expect(fold.rev(tool)).toBeGreaterThan(r0);
    expect(fold.rev(user)).toBe(u0);
    expect(tool).toMatchObject({ state: "ok" });
    expect(fold.call("c1")).toMatchObject({
      tool: "read_file",
      effect: "idempotent",
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
    });
  });

  it("a tool's source is the latest toolset's entry for its name, else builtin", () => {
    const ev = newLog();
    ev.created();
    const fold = new SessionFold();
    for (const e of ev.events) fold.add(e);
    expect(fold.source("everything__echo")).toBe("builtin");
    const entry = (name: string, source: string) => ({ name, source, effect: "read", schemaDigest: "0".repeat(64) });
    fold.add(
      ev.stateDelta(
        {
          toolset: {
            digest: "a",
            tools: [entry("everything__echo", "mcp:everything"), entry("lookup_order", "custom")],
            unavailable: [],
          },
        },
        "runtime",
      ),
    );
    expect(fold.source("everything__echo")).toBe("mcp:everything");
    expect(fold.source("lookup_order")).toBe("custom");
    expect(fold.source("read_file")).toBe("builtin");
    // A later toolset replaces the earlier one: a tool no longer listed is no longer the server's.
    fold.add(
      ev.stateDelta(
        { toolset: { digest: "b", tools: [entry("lookup_order", "custom")], unavailable: ["everything"] } },
        "runtime",
      ),
    );
    expect(fold.source("everything__echo")).toBe("builtin");
  });

  it("an A2A agent's tool comes from a2a:<name>, as the latest recorded agent set says", () => {
    const ev = newLog();
    ev.created();
    const fold = new SessionFold();
    for (const e of ev.events) fold.add(e);
    expect(fold.source("helper__send")).toBe("builtin");
    const agents = (...names: string[]) => ({
      a2aAgents: { digest: names.join(), agents: names.map((name) => ({ name, effect: "write" })) },
    });
    fold.add(ev.stateDelta(agents("helper", "billing"), "runtime"));
    expect(fold.source("helper__send")).toBe("a2a:helper");
    expect(fold.source("billing__send")).toBe("a2a:billing");
    expect(fold.source("read_file")).toBe("builtin");
    fold.add(ev.stateDelta(agents("billing"), "runtime"));
    expect(fold.source("helper__send")).toBe("builtin");
    expect(fold.source("billing__send")).toBe("a2a:billing");
  });

  it("spans: each tool, approval, model call and turn closes; open ones close with the turn; closed turns are listed", () => {
    const ev = newLog();
    ev.created();
    ev.turn("t1");
    demoLike(ev, 1);
    ev.turn("t2");
    ev.user("again");
    ev.modelRequest();
    ev.modelCall("c9", "list_files", {});
    ev.dispatch("c9", "read");
    ev.turnClose("stopped");
    const fold = new SessionFold();
    for (const e of ev.events) fold.add(e);
    const kinds = fold.spans.map((s) => s.kind).sort();
    expect(kinds).toContain("tool");
    expect(kinds).toContain("approval");
    expect(kinds).toContain("turn");
    expect(fold.spans.every((s) => s.end !== undefined && s.end >= s.start)).toBe(true);
    expect(fold.spans.filter((s) => s.kind === "turn").map((s) => s.outcome)).toEqual(["completed", "stopped"]);
    const closes = ev.events.filter((e) => e.actions?.turnClose);
    expect(fold.turns.map((t) => [t.turnId, t.seq, t.reason])).toEqual(
      closes.map((e) => [e.turnId, e.seq, e.actions!.turnClose!.reason]),
    );
  });

  it("5,000 random events fold to the server's transcript", () => {
    const r = prng(7);
    const ev = newLog();
    ev.created();
    let n = 0;
    while (ev.events.length < 5_000) {
      n++;
      if (r.int(4) === 0) ev.recoveryNotice([], []);
      demoLike(ev, n);
    }
    const fold = new SessionFold();
    for (const e of ev.events) fold.add(e);
    expect(fold.items).toEqual(buildTranscript(ev.events));
  });
});

describe("applyDelta", () => {
  const buffers = () => new Map<string, Streamed>();
  const text = (m: Map<string, Streamed>) => Object.fromEntries([...m].map(([k, v]) => [k, `${v.attempt}:${v.text}`]));

  it("appends within an attempt; a later attempt replaces the failed one's text of every kind", () => {
    const m = buffers();
    applyDelta(m, { invocationId: "i", attempt: 1, kind: "thinking", text: "th" });
    applyDelta(m, { invocationId: "i", attempt: 1, kind: "text", text: "Hel" });
    applyDelta(m, { invocationId: "i", attempt: 1, kind: "text", text: "lo" });
    expect(text(m)).toEqual({ "i:thinking": "1:th", "i:text": "1:Hello" });
    applyDelta(m, { invocationId: "i", attempt: 2, kind: "text", text: "Hi" });
    expect(text(m)).toEqual({ "i:text": "2:Hi" });
    // A late delta of the failed attempt is dropped.
    applyDelta(m, { invocationId: "i", attempt: 1, kind: "text", text: "!!" });
    expect(text(m)).toEqual({ "i:text": "2:Hi" });
  });

  it("a replay replaces the buffer; deltas after it append", () => {
    const m = buffers();
    applyDelta(m, { invocationId: "i", attempt: 1, kind: "text", text: "stale" });
    applyDelta(m, { invocationId: "i", attempt: 1, kind: "text", text: "Hello, wor", replace: true });
    applyDelta(m, { invocationId: "i", attempt: 1, kind: "text", text: "ld" });
    expect(text(m)).toEqual({ "i:text": "1:Hello, world" });
  });
});
