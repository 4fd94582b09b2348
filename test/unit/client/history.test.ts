/**
 * The client catches up in full pages (docs/API.md §7.21–7.22): aligned to the page size so that
 * every reader asks for the same cacheable pages, caught up only after a short page, and the
 * socket then starts where the pages stopped.
 */
import { describe, expect, it } from "vitest";
import { HighwaterClient, type WebSocketLike } from "../../../src/client";

/** A fake Worker holding `head` events; records each `/events` query it is asked. */
function fakeEvents(head: number) {
  const asked: { after: number; limit: number }[] = [];
  const fetch = async (url: string) => {
    const u = new URL(url);
    const after = Number(u.searchParams.get("after"));
    const limit = Number(u.searchParams.get("limit"));
    asked.push({ after, limit });
    const events = [];
    for (let seq = after + 1; seq <= Math.min(head, after + limit); seq++) events.push({ seq, digest: `d${seq}` });
    return Response.json({ events, highWater: head, headDigest: `d${head}` });
  };
  return { asked, fetch };
}

describe("history()", () => {
  it("asks for pages aligned to the page size, and stops after the first short one", async () => {
    const { asked, fetch } = fakeEvents(1234);
    const client = new HighwaterClient({ baseUrl: "http://hw.test", token: "t", fetch });
    const seqs: number[] = [];
    for await (const page of client.history("s1", 7)) seqs.push(...page.map((e) => e.seq));
    expect(asked).toEqual([
      { after: 7, limit: 493 },
      { after: 500, limit: 500 },
      { after: 1000, limit: 500 },
    ]);
    expect(seqs).toEqual(Array.from({ length: 1234 - 7 }, (_, i) => i + 8));
  });

  it("a head exactly at a page boundary is caught up only after an empty page", async () => {
    const { asked, fetch } = fakeEvents(1000);
    const client = new HighwaterClient({ baseUrl: "http://hw.test", token: "t", fetch });
    for await (const _ of client.history("s1", 0));
    expect(asked).toEqual([
      { after: 0, limit: 500 },
      { after: 500, limit: 500 },
      { after: 1000, limit: 500 },
    ]);
  });
});

describe("connect() catches up through pages, then the socket", () => {
  it("delivers the paged events in order and opens the socket after the last of them", async () => {
    const { fetch } = fakeEvents(620);
    const urls: string[] = [];
    class FakeSocket implements WebSocketLike {
      readyState = 1;
      constructor(url: string) {
        urls.push(url);
      }
      send() {}
      close() {}
      addEventListener() {}
      removeEventListener() {}
    }
    const client = new HighwaterClient({ baseUrl: "http://hw.test", token: "t", fetch, WebSocket: FakeSocket });
    const seqs: number[] = [];
    const conn = client.connect("s1", {
      after: 10,
      onFrame: (f) => f.type === "event" && seqs.push(f.event.seq),
    });
    for (let i = 0; i < 50 && urls.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    conn.close();
    expect(seqs).toEqual(Array.from({ length: 610 }, (_, i) => i + 11));
    expect(urls).toEqual(["ws://hw.test/v1/sessions/s1/ws?after=620"]);
  });
});
