/**
 * The chat routes carry what the model saw, in bounded pieces (docs/API.md#chat-ai-sdk-ui-message-stream):
 * `GET /messages` shows an offloaded result as its placeholder with the archive's path and ends a
 * page at 4 MiB with `x-highwater-before`; the stream reads the next page of events only once the
 * client has taken the previous one.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ChatParts } from "../../src/http/chat/parts";
import { streamTurn } from "../../src/http/chat/stream";
import type { Event, EventDraft } from "../../src/log";
import { EventStore } from "../../src/log";
import { api, createSession } from "./helpers";

const MIB = 1024 * 1024;
type UIMessage = { id: string; role: string; parts: { type: string; toolCallId?: string; output?: unknown }[] };

/** `count` turns: the user's text, a model call with one tool call, its `result`, the close. */
function toolTurns(count: number, result: (i: number) => { response: unknown; offload?: unknown }): EventDraft[] {
  const drafts: EventDraft[] = [];
  for (let i = 1; i <= count; i++) {
    const turn = { turnId: `t${i}`, runId: `r${i}` };
    const invocationId = `inv${i}`;
    const r = result(i);
    drafts.push(
      {
        author: "user",
        source: "http",
        modelVisibility: "visible",
        ...turn,
        content: { type: "text", text: `q ${i}` },
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
        content: { type: "functionCall", callId: `c${i}`, name: "lookup", args: { i } },
      },
      {
        author: "tool",
        modelVisibility: "visible",
        ...turn,
        invocationId,
        content: { type: "functionResponse", callId: `c${i}`, name: "lookup", status: "ok", response: r.response },
        ...(r.offload ? { actions: { stateDelta: { offload: r.offload } } } : {}),
      },
      { author: "runtime", modelVisibility: "hidden", ...turn, actions: { turnClose: { reason: "completed" } } },
    );
  }
  return drafts;
}

async function sessionWithLog(drafts: EventDraft[]) {
  const s = await createSession({ title: "chat pages" });
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(s.id));
  await runInDurableObject(stub, async (_o, state) => {
    const store = new EventStore(state.storage.sql, s.id, (f) => state.storage.transactionSync(f));
    for (const d of drafts) store.append([d]);
  });
  return { id: s.id, userSeq: (i: number) => s.highWater + 1 + (i - 1) * 5 };
}

describe("GET /v1/chat/:id/messages", () => {
  it("shows an offloaded result as the placeholder the model saw, with the archive's path", async () => {
    const sha = "b".repeat(64);
    const offload = { sha256: sha, bytes: 400_000, preview: "first rows" };
    const { id } = await sessionWithLog(
      toolTurns(2, (i) => (i === 1 ? { response: "z".repeat(400_000), offload } : { response: "small" })),
    );
    const r = await api(`/v1/chat/${id}/messages`);
    expect(r.status).toBe(200);
    const outputs = (r.body as UIMessage[]).flatMap((m) => m.parts.filter((p) => p.toolCallId).map((p) => p.output));
    expect(outputs).toEqual([
      {
        offloaded: true,
        tool: "lookup",
        bytes: 400_000,
        sha256: sha,
        ref: `archive://${sha}`,
        preview: "first rows",
        href: `/v1/sessions/${id}/archive/${sha}`,
      },
      "small",
    ]);
    expect(JSON.stringify(r.body).length).toBeLessThan(4000);
  });

  it("ends a page at 4 MiB with x-highwater-before; following it gives the older messages, none twice", async () => {
    // 30 answers of ~300 KB each: ~9 MB of messages, none offloaded.
    const { id, userSeq } = await sessionWithLog(toolTurns(30, (i) => ({ response: `${i}:${"r".repeat(300_000)}` })));
    const first = await api(`/v1/chat/${id}/messages?limit=100`);
    expect(first.status).toBe(200);
    const page1 = first.body as UIMessage[];
    expect(JSON.stringify(page1).length).toBeLessThanOrEqual(4 * MIB);
    expect(page1.at(-1)!.id).toBe(`a_${userSeq(30)}`);
    const before = first.headers.get("x-highwater-before");
    expect(before).toBe(page1[0]!.id);
    const second = await api(`/v1/chat/${id}/messages?limit=100&before=${encodeURIComponent(before!)}`);
    const page2 = second.body as UIMessage[];
    expect(page2.length).toBeGreaterThan(0);
    const ids = [...page2, ...page1].map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // The pages join: the message before page 1's first is page 2's last.
    const n = page1.length % 2 === 0 ? 30 - page1.length / 2 : 30 - (page1.length - 1) / 2;
    expect(page2.at(-1)!.id).toBe(page1[0]!.id.startsWith("a_") ? `u_${userSeq(n + 1)}` : `a_${userSeq(n)}`);
    // A page under the bound has no such header.
    const small = await api(`/v1/chat/${id}/messages?limit=2`);
    expect(small.headers.get("x-highwater-before")).toBeNull();
  });
});

describe("the chat stream's backpressure", () => {
  it("reads the next page of events only when the client has taken what was sent", async () => {
    // A turn 2,000 events long, all in the log; the socket (were it asked) would send them all at once.
    const events: Event[] = [];
    const at = new Date(0).toISOString();
    const base = { sessionId: "s", at, digest: "d", turnId: "t1", runId: "r1", invocationId: "inv1" };
    events.push({
      ...base,
      seq: 1,
      author: "runtime",
      modelVisibility: "hidden",
      actions: { modelRequest: {} },
    } as Event);
    for (let seq = 2; seq <= 2000; seq++)
      events.push({
        ...base,
        seq,
        author: "model",
        modelVisibility: "visible",
        content: { type: "text", text: `line ${seq} ${"x".repeat(1000)}` },
      } as Event);
    let pages = 0;
    const stub = {
      chatEvents: async (_caller: unknown, after: number) => {
        pages++;
        const page = events.filter((e) => e.seq > after).slice(0, 50);
        return { ok: true, value: { events: page, atHead: page.at(-1)?.seq === 2000 } };
      },
      fetch: async () => {
        const pair = new WebSocketPair();
        const [client, server] = [pair[0], pair[1]];
        server.accept();
        queueMicrotask(() => {
          for (const e of events) server.send(JSON.stringify({ type: "event", event: e }));
        });
        return new Response(null, { status: 101, webSocket: client });
      },
    } as unknown as Parameters<typeof streamTurn>[0];
    const fold = new ChatParts({ turnId: "t1" });
    const res = streamTurn(stub, { principal: "p" }, 0, fold);
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 200));
    // One page (and at most the one the first read asked for) folded, of 40.
    expect(fold.seen).toBeLessThanOrEqual(100);
    const seenBefore = fold.seen;
    // Reading on reads on.
    for (let i = 0; i < 200; i++) await reader.read();
    expect(fold.seen).toBeGreaterThan(seenBefore);
    expect(pages).toBeGreaterThan(1);
    await reader.cancel();
  });
});
