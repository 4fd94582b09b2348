/**
 * docs/API.md §6 fork and §7.30: a fork's first events, its model context starting from the
 * parent's prefix (before and after a compaction), its workspace as of `throughSeq`, calls left
 * unanswered there, and the route's bad input. Lineage against verify-export.mjs is in e2e.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { unwrap } from "../../../src/contract";
import { pullArchive } from "../../../src/features/fork/archive";
import { createFork, type ForkSource, readForkSource } from "../../../src/features/fork/commands";
import { type Event, sha256Hex } from "../../../src/log";
import type { ModelConfig, ModelPart, ModelProvider } from "../../../src/model/types";
import { applyMigrations } from "../../../src/storage";
import { listFiles, readFileRow } from "../../../src/tools";
import { type Step, scriptedProvider, withSession } from "../../do/context-harness";
import { settledTo } from "../../do/drive";
import { allEvents, api, createSession, expectError, OTHER_TOKEN, TOKEN } from "../../do/helpers";
import { runtimeOn } from "../../do/runtime-on";

const MODEL: ModelConfig = { provider: "openai", name: "fake", contextWindow: 32_000, maxOutputTokens: 4_000 };
const SMALL: ModelConfig = { provider: "openai", name: "scripted", contextWindow: 6000, maxOutputTokens: 1500 };
const filler = (n: number, word: string) => `${word} `.repeat(Math.ceil(n / (word.length + 1))).slice(0, n);

let counter = 0;

/**
 * Writes `source` into a fresh session object and reads back what a fork shows; with `then`,
 * a turn runs in the fork on `provider` and `after` is the fork's own source at its head.
 */
async function forkInto(
  source: ForkSource,
  then?: { provider: ModelProvider; text: string },
  archive: { text: string; mediaType: string }[] = [],
) {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`fork-${Date.now()}-${counter++}`));
  return runInDurableObject(stub, async (_i, state) => {
    const sql = state.storage.sql;
    const transactionSync = <R>(f: () => R): R => state.storage.transactionSync(f);
    // A fresh object has no tables until its seq 1 (docs/API.md §7.26).
    transactionSync(() => applyMigrations(sql));
    const sessionId = state.id.toString();
    const { store, runtime } = runtimeOn(sql, transactionSync, sessionId, {
      providerFor: () => {
        if (!then) throw new Error("no model in this test");
        return then.provider;
      },
      fetch: () => Promise.reject(new Error("no network")),
      policy: { backoffMs: [0, 0, 0, 0], sliceBackoffMs: [0, 0, 0, 0] },
    });
    const session = createFork(runtime, { id: sessionId, source, owner: "0".repeat(64), archive });
    const files = () => Object.fromEntries(listFiles(sql).map((f) => [f.path, readFileRow(sql, f.path)!.content]));
    const blobs = sql
      .exec<{ sha256: string }>("SELECT sha256 FROM blobs")
      .toArray()
      .map((r) => r.sha256);
    const shown = { session, events: store.readAfter(0, 1000), context: runtime.buildContext(), files: files(), blobs };
    if (!then) return { ...shown, after: null };
    await runtime.postMessage({ text: then.text, source: "http" });
    for (let i = 0; runtime.summary?.openTurn; i++) {
      if (i > 50) throw new Error("the fork's turn did not close");
      await runtime.alarm();
    }
    return {
      ...shown,
      after: {
        events: store.readAfter(0, 1000),
        context: runtime.buildContext(),
        source: readForkSource(runtime, runtime.summary!.highWater),
        files: files(),
      },
    };
  });
}

const text = (t: string): ModelPart[] => [
  { type: "text-delta", text: t },
  { type: "usage", inputTokens: 10, outputTokens: 2 },
  { type: "finish", reason: "stop" },
];

/** First answer: two write_file calls; then a text answer. */
function twoCalls(): ModelProvider {
  let n = 0;
  return {
    name: "openai",
    async *stream() {
      if (n++ > 0) {
        for (const p of text("both written")) yield p;
        return;
      }
      yield { type: "text-delta", text: "writing two files" };
      yield { type: "tool-call", callId: "p-1", name: "write_file", args: { path: "a.txt", content: "A" } };
      yield { type: "tool-call", callId: "p-2", name: "write_file", args: { path: "b.txt", content: "B" } };
      yield { type: "usage", inputTokens: 10, outputTokens: 2 };
      yield { type: "finish", reason: "tool-calls" };
    },
  };
}

const responses = (events: Event[]) =>
  events.flatMap((e) => (e.content?.type === "functionResponse" ? [e.content] : []));

const stubOf = (id: string) => env.SESSIONS.get(env.SESSIONS.idFromString(id));
const caller = { principal: sha256Hex(TOKEN) };

describe("fork inside an open turn", () => {
  it("a dispatched call is interrupted, an undispatched one rejected, and the turn closes stopped", async () => {
    const { source, parentEvents } = await withSession({ provider: twoCalls(), model: MODEL }, async (h) => {
      await h.runTurn("write a and b");
      const events = h.events();
      const firstDispatch = events.find((e) => e.actions?.toolDispatch)!;
      return { source: readForkSource(h.runtime, firstDispatch.seq), parentEvents: events };
    });
    const fork = await forkInto(source);
    const through = source.forkedFrom.throughSeq;
    expect(source.forkedFrom.digest).toBe(parentEvents[through - 1]!.digest);

    const [first, second, ...rest] = fork.events;
    expect(first!.actions?.stateDelta?.session).toMatchObject({ parentId: null, forkedFrom: source.forkedFrom });
    expect(second!.modelVisibility).toBe("hidden");
    expect(second!.actions?.stateDelta?.forkPrefix).toMatchObject({ $blob: { mediaType: "application/json" } });
    const calls = rest.filter((e) => e.content?.type === "functionCall").map((e) => (e.content as any).callId);
    const parentCalls = parentEvents
      .filter((e) => e.content?.type === "functionCall")
      .map((e) => (e.content as any).callId);
    expect(calls).toEqual(parentCalls);
    expect(rest.filter((e) => e.actions?.toolDispatch).map((e) => e.actions!.toolDispatch!.callId)).toEqual([calls[0]]);
    expect(responses(rest).map((r) => [r.callId, r.status])).toEqual([
      [calls[0], "interrupted"],
      [calls[1], "rejected"],
    ]);
    expect(rest.at(-1)!.actions?.turnClose).toEqual({ reason: "stopped" });
    expect(fork.session).toMatchObject({ status: "idle", openTurn: false, parentId: null });

    // The context: the parent's messages through throughSeq, then the copied calls and their answers.
    const msgs = fork.context.messages;
    expect(msgs[1]).toEqual({ role: "user", content: "write a and b" });
    const assistant = msgs.filter((m) => m.role === "assistant");
    expect(
      assistant.flatMap((m) => (m.content as any[]).filter((p) => p.type === "tool-call").map((p) => p.callId)),
    ).toEqual(calls);
    const results = msgs.filter((m) => m.role === "tool").flatMap((m) => m.content as any[]);
    expect(results.map((r) => r.status)).toEqual(["interrupted", "rejected"]);
    // Neither write happened in the fork: the parent had not answered them at throughSeq.
    expect(fork.files).toEqual({});
  });

  it("forking at the call itself rejects it (it was never dispatched)", async () => {
    const source = await withSession({ provider: twoCalls(), model: MODEL }, async (h) => {
      await h.runTurn("write a and b");
      const call = h.events().find((e) => e.content?.type === "functionCall")!;
      return readForkSource(h.runtime, call.seq);
    });
    const fork = await forkInto(source);
    expect(responses(fork.events).map((r) => r.status)).toEqual(["rejected"]);
    expect(fork.events.filter((e) => e.actions?.toolDispatch)).toEqual([]);
  });
});

describe("a fork's workspace", () => {
  const steps: Step[] = [
    { kind: "call", name: "write_file", args: { path: "a.txt", content: "one two one-and-a-half" } },
    { kind: "call", name: "edit_file", args: { path: "a.txt", oldText: "two", newText: "$& three" } },
    { kind: "call", name: "write_file", args: { path: "dir/b.txt", content: "B" } },
    { kind: "call", name: "delete_file", args: { path: "dir/b.txt" } },
    { kind: "call", name: "edit_file", args: { path: "a.txt", oldText: "absent", newText: "x" } },
    { kind: "answer", text: "done" },
  ];

  it("is the parent's as of throughSeq, edits replayed from the log", async () => {
    const provider = scriptedProvider({ next: (_r, n) => steps[n]! });
    const { sources, parentFiles } = await withSession({ provider, model: MODEL }, async (h) => {
      await h.runTurn("edit files");
      const events = h.events();
      const okAfter = (name: string, nth = 0) => {
        const ids = events
          .filter((e) => e.content?.type === "functionCall" && e.content.name === name)
          .map((e) => (e.content as any).callId);
        return events.find((e) => e.content?.type === "functionResponse" && e.content.callId === ids[nth])!.seq;
      };
      const sql = h.state.storage.sql;
      return {
        sources: {
          afterEdit: readForkSource(h.runtime, okAfter("edit_file")),
          beforeDelete: readForkSource(h.runtime, okAfter("write_file", 1)),
          head: readForkSource(h.runtime, h.runtime.summary!.highWater),
        },
        parentFiles: Object.fromEntries(listFiles(sql).map((f) => [f.path, readFileRow(sql, f.path)!.content])),
      };
    });
    // `$&` is literal: the replay slices like the tool, it never expands replacement patterns.
    expect((await forkInto(sources.afterEdit)).files).toEqual({ "a.txt": "one $& three one-and-a-half" });
    expect((await forkInto(sources.beforeDelete)).files).toEqual({
      "a.txt": "one $& three one-and-a-half",
      "dir/b.txt": "B",
    });
    const head = await forkInto(sources.head);
    expect(head.files).toEqual(parentFiles);
    expect(head.files).toEqual({ "a.txt": "one $& three one-and-a-half" });
  });
});

describe("a fork's context starts from the parent's prefix", () => {
  /** Ten heavy steps (enough to compact), then small ones, then an answer. */
  const heavy = (_r: unknown, n: number): Step => {
    if (n >= 14) return { kind: "answer", text: `done (${n})` };
    if (n < 10)
      return { kind: "call", name: "write_file", args: { path: `s/${n}.md`, content: filler(1800, `part${n}`) } };
    return { kind: "call", name: "list_files", args: { path: "s" } };
  };

  it("before a compaction: the raw prefix, no checkpoint; after: the checkpoint valid at that seq", {
    timeout: 60_000,
  }, async () => {
    const provider = scriptedProvider({ next: heavy });
    const r = await withSession({ provider, model: SMALL }, async (h) => {
      await h.runTurn("GOAL: write the parts");
      const events = h.events();
      const cps = events.filter((e) => e.actions?.stateDelta?.checkpoint);
      expect(cps.length).toBeGreaterThanOrEqual(2);
      const [first, second] = cps;
      return {
        before: readForkSource(h.runtime, first!.seq - 1),
        between: readForkSource(h.runtime, second!.seq - 1),
        after: readForkSource(h.runtime, h.runtime.summary!.highWater),
        first: first!.actions!.stateDelta!.checkpoint as any,
        last: cps.at(-1)!.actions!.stateDelta!.checkpoint as any,
        head: h.runtime.buildContext(),
      };
    });
    const early = await forkInto(r.before);
    expect(r.before.prefix.checkpoint).toBeNull();
    expect(early.context.messages[1]).toEqual({ role: "user", content: "GOAL: write the parts" });
    expect(JSON.stringify(early.context.messages)).not.toContain("[Continuation checkpoint");

    // Between two compactions: the first checkpoint (the one valid at that seq), then the raw events after it.
    const mid = await forkInto(r.between);
    expect(r.between.prefix.checkpoint).toMatchObject({ id: r.first.id, throughSeq: r.first.throughSeq });
    expect(String((mid.context.messages[1] as any).content)).toContain(r.first.summary);

    const late = await forkInto(r.after);
    expect(r.after.prefix.checkpoint).toMatchObject({ id: r.last.id, throughSeq: r.last.throughSeq });
    // The parent's context at its head (completed turn: nothing unanswered) is the fork's, message for message.
    expect(late.context.messages).toEqual(r.head.messages);
    expect(String((late.context.messages[1] as any).content)).toContain(r.last.summary);
  });
});

describe("a fork that goes on", () => {
  const heavy = (_r: unknown, n: number): Step =>
    n < 8
      ? { kind: "call", name: "write_file", args: { path: `s/${n}.md`, content: filler(1800, `part${n}`) } }
      : { kind: "answer", text: `done (${n})` };

  it("compacts its parent's prefix into its own first checkpoint, and a fork of it starts from its view", {
    timeout: 60_000,
  }, async () => {
    const source = await withSession({ provider: scriptedProvider({ next: heavy }), model: MODEL }, async (h) => {
      await h.runTurn("GOAL: write the parts");
      return readForkSource(h.runtime, h.runtime.summary!.highWater);
    });
    // The same prefix on a small window: the fork's first call has to compact it.
    const forkModel = scriptedProvider({ next: () => ({ kind: "answer", text: "continued" }) });
    const fork = await forkInto({ ...source, model: SMALL }, { provider: forkModel, text: "go on" });
    const summaries = forkModel.recorded.filter((r) => r.kind === "summary");
    expect(summaries.length).toBeGreaterThan(0);
    expect(JSON.stringify(summaries[0]!.request.messages)).toContain("GOAL: write the parts");
    const cp = fork.after!.events.find((e) => e.actions?.stateDelta?.checkpoint);
    expect(cp).toBeDefined();
    expect(fork.after!.context.checkpoint?.id).toBe((cp!.actions!.stateDelta!.checkpoint as any).id);
    const turn = forkModel.recorded.filter((r) => r.kind === "turn");
    expect(turn.at(-1)!.request.messages.at(-1)).toEqual({ role: "user", content: "go on" });
    expect(fork.after!.files).toEqual(source.prefix.workspace);

    // A fork of the fork: its context is the fork's at that seq, its workspace the fork's.
    const grandchild = await forkInto(fork.after!.source);
    expect(grandchild.context.messages).toEqual(fork.after!.context.messages);
    expect(grandchild.files).toEqual(fork.after!.files);
  });

  it("a fork of a fork before its first checkpoint carries the inherited prefix", async () => {
    const source = await withSession({ provider: twoCalls(), model: MODEL }, async (h) => {
      await h.runTurn("write a and b");
      return readForkSource(h.runtime, h.runtime.summary!.highWater);
    });
    const child = await forkInto(source, { provider: twoCalls(), text: "again" });
    const grandchild = await forkInto(child.after!.source);
    expect(grandchild.context.messages).toEqual(child.after!.context.messages);
    expect(grandchild.context.messages[1]).toEqual({ role: "user", content: "write a and b" });
    expect(grandchild.files).toEqual({ "a.txt": "A", "b.txt": "B" });
  });
});

describe("a fork's archive", () => {
  it("holds the results its prefix shows as placeholders, so their archive refs resolve", async () => {
    const big = filler(5000, "bulk");
    const steps: Step[] = [
      { kind: "call", name: "write_file", args: { path: "big.txt", content: big } },
      { kind: "call", name: "read_file", args: { path: "big.txt" } },
      { kind: "answer", text: "read it" },
    ];
    const provider = scriptedProvider({ next: (_r, n) => steps[n]! });
    const { source, archive } = await withSession(
      { provider, model: MODEL, offloadThresholdBytes: 1024 },
      async (h) => {
        await h.runTurn("read the big file");
        const source = readForkSource(h.runtime, h.runtime.summary!.highWater);
        // The fork's object copies the bytes from the parent a page per reply (features/fork/archive.ts).
        const archive = await pullArchive(
          async (sha, offset, limit) => ({
            ok: true,
            value: { bytes: h.store.blobs.read(sha, offset, limit)!, mediaType: "", total: 0 },
          }),
          source.archive,
        );
        return { source, archive };
      },
    );
    // The parent's reply names the blob; it does not carry its bytes.
    expect(source.archive).toEqual([
      { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number), mediaType: expect.any(String) },
    ]);
    expect(source.archive[0]!.bytes).toBeGreaterThan(5000);
    expect(JSON.stringify(source.archive).length).toBeLessThan(200);
    const fork = await forkInto(source, undefined, archive);
    const placeholders = fork.context.messages
      .filter((m) => m.role === "tool")
      .flatMap((m) => m.content as any[])
      .filter((p) => p.output?.offloaded);
    expect(placeholders).toHaveLength(1);
    expect(fork.blobs).toContain(placeholders[0].output.sha256);
  });
});

describe("POST /fork", () => {
  it("the object's creation path refuses an object that exists (409) and a creation no feature names (404); neither writes", async () => {
    const parent = await createSession({ title: "parent" });
    const source = unwrap(await stubOf(parent.id).call(caller, "fork", "source", { throughSeq: 1 }));
    const existing = await createSession({ title: "taken" });
    const taken = await stubOf(existing.id).createBy(caller, "fork", "fork", { source });
    expect(taken.ok ? null : taken.error.code).toBe("conflict");
    expect((await allEvents(existing.id)).length).toBe(1);

    const fresh = env.SESSIONS.newUniqueId();
    const unknown = await env.SESSIONS.get(fresh).createBy(caller, "fork", "nope", { source });
    expect(unknown.ok ? null : unknown.error.code).toBe("not_found");
    const made = await env.SESSIONS.get(fresh).createBy(caller, "fork", "fork", { source });
    expect((unwrap(made) as { forkedFrom: unknown }).forkedFrom).toMatchObject({ sessionId: parent.id, throughSeq: 1 });
  });

  it("answers 201 with an idle session whose seq 1 names the parent; bad input is 400 and writes nothing", async () => {
    const parent = await createSession({ title: "parent" });
    await api(`/v1/sessions/${parent.id}/messages`, { method: "POST", json: { text: "write a note" } });
    const done = await settledTo(parent.id, (s) => s.openTurn === false);
    const hw = done.highWater;

    for (const body of [
      { throughSeq: 0 },
      { throughSeq: hw + 1 },
      { throughSeq: 1.5 },
      {},
      { throughSeq: 1, title: "x" },
      { throughSeq: 1, jurisdiction: "eu" },
      null,
    ])
      expectError(await api(`/v1/sessions/${parent.id}/fork`, { method: "POST", json: body }), 400, "bad_request");
    expectError(
      await api(`/v1/sessions/${parent.id}/fork`, { method: "POST", json: { throughSeq: 1 }, token: OTHER_TOKEN }),
      404,
      "not_found",
    );
    expect((await allEvents(parent.id)).length).toBe(hw);

    const r = await api(`/v1/sessions/${parent.id}/fork`, { method: "POST", json: { throughSeq: hw } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ status: "idle", openTurn: false, parentId: null, title: "parent" });
    expect(r.body.forkedFrom).toMatchObject({ sessionId: parent.id, throughSeq: hw });
    expect(done.forkedFrom).toBeNull();
    const parentEvents = await allEvents(parent.id);
    const forkEvents = await allEvents(r.body.id);
    expect(forkEvents[0].actions.stateDelta.session.forkedFrom).toEqual({
      sessionId: parent.id,
      throughSeq: hw,
      digest: parentEvents[hw - 1].digest,
    });
    const files = await api(`/v1/sessions/${r.body.id}/files`);
    const parentFiles = await api(`/v1/sessions/${parent.id}/files`);
    expect(files.body.files.map((f: any) => f.path)).toEqual(parentFiles.body.files.map((f: any) => f.path));
    const path = parentFiles.body.files[0].path;
    expect((await api(`/v1/sessions/${r.body.id}/files/${path}`)).body).toBe(
      (await api(`/v1/sessions/${parent.id}/files/${path}`)).body,
    );
    expect((await api(`/v1/sessions/${r.body.id}/verify`)).body).toMatchObject({ ok: true });
    expect((await api(`/v1/sessions/${r.body.id}/transcript`)).body.items[0]).toEqual({
      kind: "fork",
      seq: 1,
      sessionId: parent.id,
      throughSeq: hw,
      digest: parentEvents[hw - 1].digest,
    });
    // The fork is the caller's, listed like any session; the parent is unchanged.
    expect((await api(`/v1/sessions/${r.body.id}`, { token: OTHER_TOKEN })).status).toBe(404);
    expect((await allEvents(parent.id)).length).toBe(hw);

    // From seq 1: the session as created, nothing else.
    const first = await api(`/v1/sessions/${parent.id}/fork`, { method: "POST", json: { throughSeq: 1 } });
    expect(first.status).toBe(201);
    expect((await allEvents(first.body.id)).length).toBe(2);
    expect((await api(`/v1/sessions/${first.body.id}/files`)).body.files).toEqual([]);

    // The fork continues: a message runs a turn from the parent's prefix.
    await api(`/v1/sessions/${r.body.id}/messages`, { method: "POST", json: { text: "and another" } });
    const after = await settledTo(r.body.id, (s) => s.openTurn === false);
    expect(after.status).toBe("idle");
  });
});
