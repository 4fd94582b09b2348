/**
 * The chat routes' bounds (docs/API.md#chat-ai-sdk-ui-message-stream): `POST /v1/chat` takes the
 * transport's whole history up to 16 MiB, and `GET /v1/chat/:id/messages` reads only the events
 * of the newest `limit` messages, measured as rows SQLite visited, never as time.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { EventDraft } from "../../src/log";
import { EventStore } from "../../src/log";
import { chatWindow, chatWindowAfter } from "../../src/session/chat-reads";
import { freshSession, postRaw } from "./bad-input-support";
import { api, createSession, expectError } from "./helpers";
import { rowCounting } from "./row-counting";

const MIB = 1024 * 1024;
const userMessage = (id: string, text: string) => ({ id, role: "user", parts: [{ type: "text", text }] });

/** A history of `bytes` of earlier messages, then `last`: what `useChat`'s transport sends. */
function history(id: string, bytes: number, last: unknown) {
  const filler = "x".repeat(64 * 1024);
  const messages: unknown[] = [];
  for (let i = 0; i * filler.length < bytes; i++)
    messages.push({ id: `old-${i}`, role: i % 2 ? "assistant" : "user", parts: [{ type: "text", text: filler }] });
  return JSON.stringify({ id, messages: [...messages, last], trigger: "submit-message" });
}

describe("POST /v1/chat with the transport's whole history", () => {
  it("a body over 16 MiB is 413 naming prepareSendMessagesRequest, and appends nothing", async () => {
    const s = await freshSession();
    const body = history(s.id, 16 * MIB + 1, userMessage("m-big", "hi"));
    expect(body.length).toBeGreaterThan(16 * MIB);
    const r = await postRaw("/v1/chat", body);
    expectError(r, 413, "payload_too_large");
    expect(r.body.error.message).toContain("prepareSendMessagesRequest");
    await s.unchanged();
  });

  it("between 1 MiB and 16 MiB the body is read: its last message is checked (400, 413 for its text), nothing appended", async () => {
    const s = await freshSession();
    const noText = await postRaw("/v1/chat", history(s.id, 2 * MIB, { id: "m", role: "user", parts: [] }));
    expectError(noText, 400, "bad_request");
    const longText = await postRaw("/v1/chat", history(s.id, 2 * MIB, userMessage("m", "y".repeat(262_145))));
    expectError(longText, 413, "payload_too_large");
    expect(longText.body.error.message).toContain("text over 262144 bytes");
    // Other routes keep the 1 MiB limit.
    const other = await postRaw(`/v1/sessions/${s.id}/messages`, JSON.stringify({ text: "z".repeat(MIB) }));
    expectError(other, 413, "payload_too_large");
    await s.unchanged();
  });
});

/** `count` answered messages, each a turn: the user's text, a model call, its text, the close. */
function answeredTurns(count: number): EventDraft[] {
  const drafts: EventDraft[] = [];
  for (let i = 1; i <= count; i++) {
    const turn = { turnId: `t${i}`, runId: `r${i}` };
    const invocationId = `inv${i}`;
    drafts.push(
      {
        author: "user",
        source: "http",
        modelVisibility: "visible",
        ...turn,
        content: { type: "text", text: `question ${i}` },
        actions: { stateDelta: { idempotencyKey: `ui:m-${i}` } },
      },
      {
        author: "runtime",
        modelVisibility: "hidden",
        ...turn,
        invocationId,
        actions: { modelRequest: { throughSeq: 0, checkpointId: null, estimatedTokens: 1, requestDigest: "d" } },
      },
      {
        author: "model",
        modelVisibility: "visible",
        ...turn,
        invocationId,
        content: { type: "text", text: `answer ${i}` },
      },
      { author: "runtime", modelVisibility: "hidden", ...turn, actions: { turnClose: { reason: "completed" } } },
    );
  }
  return drafts;
}

/** A session over HTTP with `drafts` appended to its log; then `fn` with its storage. */
async function sessionWithLog(drafts: EventDraft[]) {
  const s = await createSession({ title: "long chat" });
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(s.id));
  await runInDurableObject(stub, async (_o, state) => {
    const store = new EventStore(state.storage.sql, s.id, (f) => state.storage.transactionSync(f));
    for (let i = 0; i < drafts.length; i += 1000) store.append(drafts.slice(i, i + 1000));
  });
  // Turn i's user message is at `userSeq(i)`; its answer is `a_<userSeq(i)>`.
  return { id: s.id, stub, userSeq: (i: number) => s.highWater + 1 + (i - 1) * 4 };
}

/** The rows SQLite visited to find where the newest `count` messages start, and that start. */
function windowRows(stub: DurableObjectStub, count: number) {
  return runInDurableObject(stub, (_o, state) => {
    const counting = rowCounting(state.storage.sql);
    const after = chatWindowAfter(counting.sql, count);
    const highWater = state.storage.sql.exec<{ h: number }>("SELECT max(seq) AS h FROM events").one().h;
    return { after, highWater, rows: counting.rowsRead() };
  });
}

type UIMessage = { id: string; role: string; parts: { type: string; text?: string }[] };
const textOf = (m: UIMessage) => m.parts.find((p) => p.type === "text")?.text;

describe("GET /v1/chat/:id/messages is bounded", () => {
  it("on 1,000 answered messages, limit=5 gives the newest 5 in order, read from the events of those messages only", async () => {
    const { id, stub, userSeq } = await sessionWithLog(answeredTurns(1000));
    const r = await api(`/v1/chat/${id}/messages?limit=5`);
    expect(r.status).toBe(200);
    const messages = r.body as UIMessage[];
    expect(messages.map((m) => [m.id, m.role, textOf(m)])).toEqual([
      [`a_${userSeq(998)}`, "assistant", "answer 998"],
      ["m-999", "user", "question 999"],
      [`a_${userSeq(999)}`, "assistant", "answer 999"],
      ["m-1000", "user", "question 1000"],
      [`a_${userSeq(1000)}`, "assistant", "answer 1000"],
    ]);
    // The start is found through the kind index: the index entry of each user message of those
    // five (5 measured; the model's text is not in the index), against the log's 4,001 events.
    const w = await windowRows(stub, 5);
    expect(w.highWater).toBe(userSeq(1000) + 3);
    expect(w.rows).toBeLessThanOrEqual(5 + 1);
    // And the route reads from there to the head: from the 5th-last user message (each user
    // message gives at least one UI message), the events of 5 turns of the log's 1,000.
    expect(w.after).toBe(userSeq(996) - 1);
  });

  it("limit defaults to 100 and goes up to 1,000; a chat shorter than the limit is whole", async () => {
    const { id } = await sessionWithLog(answeredTurns(600));
    const byDefault = (await api(`/v1/chat/${id}/messages`)).body as UIMessage[];
    expect(byDefault).toHaveLength(100);
    expect(textOf(byDefault.at(-1)!)).toBe("answer 600");
    expect(byDefault[0]!.id).toBe("m-551");
    const most = (await api(`/v1/chat/${id}/messages?limit=1000`)).body as UIMessage[];
    expect(most).toHaveLength(1000);
    const short = await sessionWithLog(answeredTurns(2));
    const whole = (await api(`/v1/chat/${short.id}/messages?limit=1000`)).body as UIMessage[];
    expect(whole.map((m) => m.id)).toEqual(["m-1", `a_${short.userSeq(1)}`, "m-2", `a_${short.userSeq(2)}`]);
  });

  it("a bad limit is 400 in the contract's shape, after the 404 of an unknown chat", async () => {
    const s = await freshSession();
    const bad = ["limit=0", "limit=1001", "limit=1.5", "limit=-1", "limit=x", "limit=", "before=", "after=3"];
    for (const q of [...bad, `before=${"m".repeat(201)}`])
      expectError(await api(`/v1/chat/${s.id}/messages?${q}`), 400, "bad_request");
    expectError(await api(`/v1/chat/${"0".repeat(64)}/messages?limit=0`), 404, "not_found");
    // A `before` the session never gave is 404, like any unknown reference.
    for (const id of ["m-1", "a_1", "u_1", "a_99"])
      expectError(await api(`/v1/chat/${s.id}/messages?before=${id}`), 404, "not_found");
    await s.unchanged();
  });

  it("before=<message id> pages back: each page the `limit` messages before the id, joining to the newest 2×limit", async () => {
    const drafts = answeredTurns(40);
    // Every third message came from elsewhere than the chat: its id is `u_<seq>`.
    for (const d of drafts.filter((_, i) => i % 12 === 0)) delete d.actions;
    const { id, stub, userSeq } = await sessionWithLog(drafts);
    const get = async (q: string) => {
      const r = await api(`/v1/chat/${id}/messages?${q}`);
      expect(r.status).toBe(200);
      return r.body as UIMessage[];
    };
    for (const limit of [7, 8]) {
      const newest = await get(`limit=${limit}`);
      const older = await get(`limit=${limit}&before=${encodeURIComponent(newest[0]!.id)}`);
      expect([...older, ...newest]).toEqual(await get(`limit=${2 * limit}`));
    }
    // Walking back to the start gives the whole chat, once.
    const seen: UIMessage[] = [];
    let page = await get("limit=9");
    while (page.length > 0) {
      seen.unshift(...page);
      page = await get(`limit=9&before=${encodeURIComponent(page[0]!.id)}`);
    }
    expect(seen).toEqual(await get("limit=1000"));
    expect(seen).toHaveLength(80);
    expect(seen[0]!.id).toBe(`u_${userSeq(1)}`);
    expect(seen[2]!.id).toBe("m-2");
    // A page back reads from its own window only, found through the index like the newest.
    const rows = await runInDurableObject(stub, (_o, state) => {
      const counting = rowCounting(state.storage.sql);
      const w = chatWindow(counting.sql, (f) => state.storage.transactionSync(f), {
        ok: true,
        value: { limit: 3, before: "m-20" },
      });
      return { ...w, rows: counting.rowsRead() };
    });
    expect(rows).toMatchObject({ after: userSeq(17) - 1, through: userSeq(20) - 1 });
    expect(rows.rows).toBeLessThanOrEqual(4 * 3 + 8);
  });
});
