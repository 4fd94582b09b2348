/**
 * Memory through sessions (docs/API.md#memory), with the demo model and real objects: "remember …"
 * in one session, a new session is shown it or recalls it, another principal never sees it.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { memoryIdFor } from "../../../src/features/memory/entries";
import { rememberTool } from "../../../src/features/memory/tools";
import { principalOf } from "../../../src/http/auth";
import { directoryIdOf } from "../../../src/http/types";
import { settledTo } from "../../do/drive";
import {
  allEvents,
  api,
  createSession,
  expectError,
  listSessionIds,
  OTHER_TOKEN,
  TOKEN,
  waitForSession,
} from "../../do/helpers";
import { allEntries, clearMemory, fillMemory, onMemorySql } from "./support";

afterEach(clearMemory);

async function say(text: string, options: unknown = {}, token = TOKEN) {
  const r = await api("/v1/sessions", { method: "POST", json: options, token });
  if (r.status !== 201) throw new Error(JSON.stringify(r.body));
  const id = r.body.id as string;
  expect((await api(`/v1/sessions/${id}/messages`, { method: "POST", json: { text }, token })).status).toBe(202);
  return id;
}
const events = async (id: string, token = TOKEN) =>
  (await api(`/v1/sessions/${id}/events?limit=1000`, { token })).body.events as any[];
const lastAnswer = (evs: any[]) =>
  evs.findLast((e) => e.author === "model" && e.content?.type === "text")?.content.text as string;

describe("memory tools with the demo model", () => {
  it("remembers in one session; a new session of the same token is shown it and recalls it; another token never sees it", async () => {
    const s1 = await say("always remember our fiscal year starts in April");
    await settledTo(s1, (s) => !s.openTurn && s.status === "idle");
    const e1 = await events(s1);
    const call = e1.find((e) => e.content?.type === "functionCall" && e.content.name === "remember");
    expect(call.content.args).toEqual({ text: "our fiscal year starts in April", pinned: true });
    const dispatch = e1.find((e) => e.actions?.toolDispatch?.callId === call.content.callId);
    expect(dispatch.actions.toolDispatch.effect).toBe("idempotent");
    const response = e1.find((e) => e.content?.type === "functionResponse" && e.content.callId === call.content.callId);
    const id = response.content.response.id;
    expect(id).toBe(memoryIdFor("call", dispatch.actions.toolDispatch.idempotencyKey));
    const stored = (await allEntries()).find((e) => e.id === id);
    expect(stored).toMatchObject({
      text: "our fiscal year starts in April",
      pinned: true,
      source: { sessionId: s1, seq: call.seq },
    });

    const s2 = await say("what do you remember about fiscal year?");
    await settledTo(s2, (s) => !s.openTurn);
    const e2 = await events(s2);
    expect(e2.find((e) => e.actions?.stateDelta?.memoryShown).actions.stateDelta.memoryShown.ids).toEqual([id]);
    expect(lastAnswer(e2)).toContain("our fiscal year starts in April");

    const b = await say("what do you remember about fiscal year?", {}, OTHER_TOKEN);
    for (let i = 0; (await api(`/v1/sessions/${b}`, { token: OTHER_TOKEN })).body.openTurn; i++) {
      if (i > 400) throw new Error("B's turn did not close");
      await new Promise((r) => setTimeout(r, 50));
    }
    const eb = await events(b, OTHER_TOKEN);
    expect(eb.some((e) => e.actions?.stateDelta?.memoryShown)).toBe(false);
    expect(JSON.stringify(eb)).not.toContain("April");
    expect(lastAnswer(eb)).toContain("don't remember");
  });

  it("a re-run of remember with the same idempotency key stores once; a full memory answers memory_full and stores nothing", async () => {
    const directoryId = directoryIdOf(env, principalOf(TOKEN)).toString();
    const ctx = {
      sessionId: "s",
      callId: "c",
      callSeq: 3,
      idempotencyKey: "session-x:call-1",
      directoryId,
      env: env as unknown as Record<string, unknown>,
    } as Parameters<typeof rememberTool.run>[1];
    const first = await rememberTool.run({ text: "stored once" }, ctx);
    const again = await rememberTool.run({ text: "stored once" }, ctx);
    expect(first).toEqual({ status: "ok", response: { id: memoryIdFor("call", "session-x:call-1") } });
    expect(again).toEqual(first);
    expect((await allEntries()).filter((e) => e.text === "stored once")).toHaveLength(1);

    await fillMemory(10_000, 1);
    const full = await rememberTool.run({ text: "one too many" }, { ...ctx, idempotencyKey: "session-x:call-2" });
    expect(full).toMatchObject({ status: "error", response: { code: "memory_full" } });
    // The entry already stored is still answered: a re-run after a crash is not refused.
    expect(await rememberTool.run({ text: "stored once" }, ctx)).toEqual(first);
    expect(await onMemorySql(TOKEN, (sql) => sql.exec("SELECT count(*) AS n FROM entries").one().n)).toBe(10_000);
  });

  it("SessionOptions.memory: a bad value is 400 and creates nothing; a child inherits its parent's", async () => {
    const before = await listSessionIds();
    for (const memory of ["on", "", 1, null, ["read"]])
      expectError(await api("/v1/sessions", { method: "POST", json: { memory } }), 400, "bad_request");
    expect(await listSessionIds()).toEqual(before);

    const parent = await createSession({ memory: "read" });
    await api(`/v1/sessions/${parent.id}/messages`, {
      method: "POST",
      json: { text: "spawn: remember the child fact" },
    });
    await waitForSession(parent.id, (s) => s.status === "idle" && !s.openTurn, 25_000);
    const spawn = (await allEvents(parent.id)).find((e) => e.content?.type === "functionResponse");
    const childId = spawn.content.response.sessionId;
    const child = await allEvents(childId);
    expect(child[0].actions.stateDelta.session.options.memory).toBe("read");
    expect(child.some((e) => e.content?.type === "functionCall" && e.content.name === "remember")).toBe(false);
    expect((await allEntries()).some((e) => e.text.includes("child fact"))).toBe(false);
  });
});

describe("memory limits", () => {
  it("10,000 entries: POST is 409 memory_full and writes nothing", async () => {
    await fillMemory(10_000, 1);
    const r = await api("/v1/memory", { method: "POST", json: { text: "the 10,001st" } });
    expectError(r, 409, "memory_full");
    expect(await onMemorySql(TOKEN, (sql) => sql.exec("SELECT count(*) AS n FROM entries").one().n)).toBe(10_000);
    expect((await api("/v1/memory?q=10,001st")).body.entries).toEqual([]);
  });

  it("8 MiB: POST is 409 memory_full and writes nothing, below 10,000 entries", async () => {
    await fillMemory(4096, 2048);
    expectError(await api("/v1/memory", { method: "POST", json: { text: "x" } }), 409, "memory_full");
    const usage = await onMemorySql(TOKEN, (sql) =>
      sql.exec<{ n: number; b: number }>("SELECT count(*) AS n, sum(bytes) AS b FROM entries").one(),
    );
    expect(usage).toEqual({ n: 4096, b: 8 * 1024 * 1024 });
  });
});
