import { describe, expect, it } from "vitest";
import { HighwaterClient, type WebSocketLike } from "../../../src/client";

/**
 * README "Writing a client": every message carries an idempotencyKey, because an upload cut
 * off mid-body can still commit through wrangler dev's proxy, and only the key makes a retry safe.
 */
describe("the client always sends an idempotencyKey", () => {
  it("over HTTP: a fresh key when none is given, the caller's when it is", async () => {
    const bodies: unknown[] = [];
    const client = new HighwaterClient({
      baseUrl: "http://hw.test",
      token: "t",
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        return Response.json({ turnId: "turn", seq: 2 }, { status: 202 });
      },
    });
    await client.sendMessage("s1", "hello");
    await client.sendMessage("s1", "hello");
    await client.sendMessage("s1", "again", "mine");
    const keys = bodies.map((b) => (b as { idempotencyKey?: string }).idempotencyKey);
    expect(keys[0]).toMatch(/^k-[0-9a-f]{32}$/);
    expect(keys[1]).toMatch(/^k-[0-9a-f]{32}$/);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe("mine");
  });

  it("over the socket: a message frame without a key gets one", async () => {
    const sent: string[] = [];
    const listeners: Record<string, ((e: unknown) => void)[]> = {};
    class FakeSocket implements WebSocketLike {
      readyState = 1;
      constructor() {
        queueMicrotask(() => {
          for (const l of listeners.message ?? [])
            l({ type: "message", data: JSON.stringify({ type: "ready", session: {} }) });
        });
      }
      send(data: string) {
        sent.push(data);
      }
      close() {}
      addEventListener(type: string, listener: (e: unknown) => void) {
        listeners[type] = [...(listeners[type] ?? []), listener];
      }
      removeEventListener(type: string, listener: (e: unknown) => void) {
        listeners[type] = (listeners[type] ?? []).filter((l) => l !== listener);
      }
    }
    const client = new HighwaterClient({ baseUrl: "http://hw.test", token: "t", WebSocket: FakeSocket });
    let opened: () => void = () => {};
    const open = new Promise<void>((r) => {
      opened = r;
    });
    const conn = client.connect("s1", { onFrame: () => {}, onState: (s) => s === "open" && opened() });
    await open;
    void conn.send({ type: "message", text: "hi" }).catch(() => {});
    conn.close();
    const frame = JSON.parse(sent.find((s) => s.includes('"message"'))!);
    expect(frame).toMatchObject({ type: "message", text: "hi", idempotencyKey: expect.stringMatching(/^k-/) });
  });
});
