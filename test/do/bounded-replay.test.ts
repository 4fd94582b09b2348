import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type EventDraft, EventStore } from "../../src/log";
import { isCatchingUp, pumpSocket, REPLAY_PAGE, replaySocket, type SocketAttachment } from "../../src/session";
import { applyMigrations } from "../../src/storage";

/** A stand-in for a hibernatable server socket: frames sent, and the attachment. */
function fakeSocket(cursor: number) {
  let attachment: SocketAttachment = { principal: "p", cursor };
  const frames: string[] = [];
  const ws = {
    send: (f: string) => frames.push(f),
    serializeAttachment: (a: SocketAttachment) => (attachment = a),
    deserializeAttachment: () => attachment,
  } as unknown as WebSocket;
  const seqs = () => frames.map((f) => (JSON.parse(f) as { event: { seq: number } }).event.seq);
  return { ws, frames, seqs };
}

const note = (i: number): EventDraft => ({
  author: "runtime",
  modelVisibility: "hidden",
  actions: { stateDelta: { i } },
});

describe("WebSocket catch-up is replayed in bounded pages (docs/design.md §7)", () => {
  it("yields between pages, skips broadcasts while catching up, and sends every event once in order", async () => {
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`replay-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_o, state) => {
      // SessionObject migrates lazily with seq 1 (docs/API.md §7.26); these tests use its tables directly.
      state.storage.transactionSync(() => applyMigrations(state.storage.sql));
      const store = new EventStore(state.storage.sql, "s", (f) => state.storage.transactionSync(f));
      store.append(Array.from({ length: 5_000 }, (_, i) => note(i)));
      const replaying = fakeSocket(0);
      const live = fakeSocket(store.head().highWater);
      // What #broadcast does after every commit: pump every socket.
      const commit = (n: number) => {
        store.append(Array.from({ length: n }, (_, i) => note(i)));
        pumpSocket(replaying.ws, store);
        pumpSocket(live.ws, store);
      };
      let done = false;
      let turns = 0;
      let maxBurst = 0;
      let mark = 0;
      const other = (async () => {
        while (!done) {
          await new Promise((r) => setTimeout(r, 0));
          turns++;
          maxBurst = Math.max(maxBurst, replaying.frames.length - mark);
          commit(3); // the agent loop commits while the socket catches up
          mark = replaying.frames.length;
        }
      })();
      const replay = replaySocket(replaying.ws, store);
      expect(isCatchingUp(replaying.ws)).toBe(true);
      await replay;
      done = true;
      await other;
      expect(isCatchingUp(replaying.ws)).toBe(false);
      commit(2); // live again: broadcasts reach it
      const head = store.head().highWater;
      expect(replaying.seqs()).toEqual(Array.from({ length: head }, (_, i) => i + 1));
      expect(live.seqs()).toEqual(Array.from({ length: head - 5_000 }, (_, i) => 5_001 + i));
      // 5,000+ events went out in pages: the object got a turn between them.
      expect(turns).toBeGreaterThanOrEqual(Math.floor(5_000 / REPLAY_PAGE));
      expect(maxBurst).toBeLessThanOrEqual(REPLAY_PAGE + 3);
    });
  });
});
