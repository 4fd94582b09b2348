import { describe, expect, it } from "vitest";
import type { Event } from "../../../src/log";
import type { NeutralMessage } from "../../../src/model/types";
import { buildModelMessages } from "../../../src/projections";
import { deepFreeze, type LogBuilder, newLog, prng } from "../support/fixtures";

const SYSTEM = "You are a test agent.";
const messagesOf = (events: Event[], summary: string | null = null) =>
  buildModelMessages({ system: SYSTEM, summary, events });
const sys: NeutralMessage = { role: "system", content: SYSTEM };

describe("buildModelMessages", () => {
  it("starts with the system prompt, then the checkpoint summary when there is one", () => {
    const ev = newLog();
    ev.user("hi");
    expect(messagesOf(ev.events)).toEqual([sys, { role: "user", content: "hi" }]);
    const [, summary] = messagesOf(ev.events, "GOAL: test");
    expect(summary).toMatchObject({ role: "user" });
    expect(summary?.content).toContain("GOAL: test");
  });

  it("skips hidden events, even hidden ones with text content", () => {
    const ev = newLog();
    ev.created();
    ev.user("hi");
    ev.stateDelta({ title: "x" });
    ev.modelRequest();
    ev.error("provider_error", "secret upstream detail");
    ev.modelText("hello", { endInvocation: true });
    ev.turnClose("completed");
    // A hidden user text (e.g. a future runtime note) must not reach the model either.
    const hidden = { ...ev.user("not for the model"), modelVisibility: "hidden" as const };
    ev.events[ev.events.length - 1] = hidden;
    expect(messagesOf(ev.events)).toEqual([
      sys,
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "text", text: "hello" }] },
    ]);
  });

  it("merges consecutive model events of one invocation into one assistant message, in order", () => {
    const ev = newLog();
    ev.user("look");
    ev.modelRequest();
    ev.modelThinking("let me think", "sig-1");
    ev.modelThinking("unsigned");
    ev.modelText("I will read two files.");
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.modelCall("c2", "read_file", { path: "b" });
    expect(messagesOf(ev.events)).toEqual([
      sys,
      { role: "user", content: "look" },
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "let me think", signature: "sig-1" },
          { type: "thinking", text: "unsigned" },
          { type: "text", text: "I will read two files." },
          { type: "tool-call", callId: "c1", name: "read_file", args: { path: "a" } },
          { type: "tool-call", callId: "c2", name: "read_file", args: { path: "b" } },
        ],
      },
    ]);
  });

  it("model events of different invocations stay separate assistant messages", () => {
    const ev = newLog();
    ev.user("hi");
    ev.modelRequest();
    ev.modelText("first");
    ev.modelRequest();
    ev.modelText("second");
    expect(messagesOf(ev.events).slice(2)).toEqual([
      { role: "assistant", content: [{ type: "text", text: "first" }] },
      { role: "assistant", content: [{ type: "text", text: "second" }] },
    ]);
  });

  it("merges the tool results of one step into one tool message, pairing each with its call", () => {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.modelCall("c2", "write_file", { path: "b", content: "x" });
    ev.modelCall("c3", "delete_file", { path: "c" });
    ev.dispatch("c1", "read");
    ev.response("c1", "ok", "A");
    ev.dispatch("c2", "write");
    ev.response("c2", "interrupted", { interrupted: true });
    ev.response("c3", "rejected", { reason: "stopped" });
    ev.modelRequest();
    ev.modelText("done");
    expect(messagesOf(ev.events).slice(3)).toEqual([
      {
        role: "tool",
        content: [
          { type: "tool-result", callId: "c1", name: "read_file", status: "ok", output: "A" },
          {
            type: "tool-result",
            callId: "c2",
            name: "write_file",
            status: "interrupted",
            output: { interrupted: true },
          },
          { type: "tool-result", callId: "c3", name: "delete_file", status: "rejected", output: { reason: "stopped" } },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "done" }] },
    ]);
  });

  it("a user message that arrived while calls were pending comes after that step's tool results", () => {
    const ev = newLog();
    ev.user("first");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.modelCall("c2", "read_file", { path: "b" });
    ev.dispatch("c1", "read");
    ev.user("meanwhile one"); // arrives while c1 runs
    ev.response("c1", "ok", "A");
    ev.user("meanwhile two"); // c2 still pending
    ev.dispatch("c2", "read");
    ev.response("c2", "ok", "B");
    ev.modelRequest();
    ev.modelText("answering all");
    expect(
      messagesOf(ev.events).map((m) => [m.role, typeof m.content === "string" ? m.content : m.content.length]),
    ).toEqual([
      ["system", SYSTEM],
      ["user", "first"],
      ["assistant", 2],
      ["tool", 2],
      ["user", "meanwhile one"],
      ["user", "meanwhile two"],
      ["assistant", 1],
    ]);
  });

  // docs/API.md §3 Turns: a message "joins [the turn]: the model reads it at its next call, placed
  // after the answer and tool results of the step during which it arrived". A message committed
  // while the model is still streaming (after the hidden modelRequest, before the answer) arrived
  // during that step, so it belongs after the answer; before it, the model would read its earlier
  // answer as a reply to the new message.
  it("a user message sent while the model was streaming comes after that answer", () => {
    const ev = newLog();
    ev.user("first");
    ev.modelRequest();
    ev.user("sent while streaming");
    ev.modelText("answer to first", { endInvocation: true });
    expect(messagesOf(ev.events)).toEqual([
      sys,
      { role: "user", content: "first" },
      { role: "assistant", content: [{ type: "text", text: "answer to first" }] },
      { role: "user", content: "sent while streaming" },
    ]);
  });

  it("a user message sent while the model was streaming comes after that step's tool results", () => {
    const ev = newLog();
    ev.user("first");
    ev.modelRequest();
    ev.user("sent while streaming");
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.dispatch("c1", "read");
    ev.response("c1", "ok", "A");
    expect(messagesOf(ev.events).map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user"]);
  });

  it("an offloaded response becomes the archive placeholder; other results keep their output", () => {
    const sha = "ab".repeat(32);
    const ev = newLog();
    ev.user("fetch");
    ev.modelRequest();
    ev.modelCall("c1", "http_fetch", { url: "https://x" });
    ev.modelCall("c2", "read_file", { path: "a" });
    ev.dispatch("c1", "read");
    ev.response(
      "c1",
      "ok",
      { status: 200, body: "x".repeat(40_000) },
      {
        stateDelta: { offload: { sha256: sha, bytes: 40_031, preview: '{"body":"xxxx' } },
      },
    );
    ev.dispatch("c2", "read");
    ev.response("c2", "ok", "small");
    const tool = messagesOf(ev.events)[3];
    expect(tool).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          callId: "c1",
          name: "http_fetch",
          status: "ok",
          output: {
            offloaded: true,
            tool: "http_fetch",
            bytes: 40_031,
            sha256: sha,
            ref: `archive://${sha}`,
            preview: '{"body":"xxxx',
          },
        },
        { type: "tool-result", callId: "c2", name: "read_file", status: "ok", output: "small" },
      ],
    });
    expect(JSON.stringify(tool)).not.toContain("x".repeat(600));
  });

  it("does not mutate its (frozen) input and is deterministic", () => {
    const ev = newLog();
    ev.user("go");
    ev.modelRequest();
    ev.modelThinking("t", "s");
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.dispatch("c1", "read");
    ev.user("held");
    ev.response("c1", "ok", { lines: ["a"] });
    const events = deepFreeze(ev.events);
    expect(JSON.stringify(messagesOf(events))).toBe(JSON.stringify(messagesOf(structuredClone(events))));
  });
});

describe("buildModelMessages: prefix stability (docs/design.md §6)", () => {
  /** Appends one complete step: a user message, or a model answer with all its calls answered. */
  function step(ev: LogBuilder, r: ReturnType<typeof prng>, n: number) {
    if (r.next() < 0.3) {
      ev.user(`user says ${n}`);
      return;
    }
    ev.modelRequest();
    if (r.next() < 0.3) ev.modelThinking(`thinking ${n}`, r.next() < 0.5 ? `sig${n}` : undefined);
    if (r.next() < 0.6) ev.modelText(`text ${n}`);
    const calls = r.int(4);
    const ids = Array.from({ length: calls }, (_, i) => `c${n}_${i}`);
    for (const id of ids) ev.modelCall(id, r.pick(["read_file", "write_file", "http_fetch"]), { n, id });
    if (calls === 0 && ev.events[ev.events.length - 1]?.author !== "model") ev.modelText("");
    for (const id of ids) {
      const roll = r.next();
      if (roll < 0.1) {
        ev.response(id, "rejected", { reason: "stopped" });
        continue;
      }
      ev.dispatch(id, roll < 0.5 ? "read" : "write");
      if (r.next() < 0.2) ev.user(`while ${id} runs`);
      if (r.next() < 0.15)
        ev.response(id, "ok", "big", {
          stateDelta: { offload: { sha256: `${id}`.padEnd(64, "0"), bytes: 50_000, preview: "b" } },
        });
      else ev.response(id, roll < 0.8 ? "ok" : "error", { id, out: "y".repeat(r.int(20)) });
    }
  }

  it("for a log L and any longer log L' that extends it by complete steps, messages(L) is an element-wise prefix of messages(L')", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = prng(seed);
      const ev = newLog();
      ev.created();
      ev.user("start");
      const cuts: number[] = [ev.events.length];
      for (let n = 0; n < 25; n++) {
        step(ev, r, n);
        cuts.push(ev.events.length);
      }
      const views = cuts.map((c) => messagesOf(ev.events.slice(0, c)).map((m) => JSON.stringify(m)));
      for (let i = 0; i < views.length; i++)
        for (let j = i + 1; j < views.length; j++) {
          const shorter = views[i]!;
          const longer = views[j]!;
          expect(longer.length, `seed ${seed} cut ${i}→${j}`).toBeGreaterThanOrEqual(shorter.length);
          expect(longer.slice(0, shorter.length), `seed ${seed} cut ${i}→${j}`).toEqual(shorter);
        }
      // The generated logs do exercise held input and multi-call steps.
      expect(views[views.length - 1]!.some((m) => m.includes("while c"))).toBe(true);
    }
  });
});
