/** Live updates: a stalled socket that reconnects and catches up, a page opened mid-answer, and the typed client's reconnect from Node with sockets dropped mid-turn. */
import { rmSync } from "node:fs";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type Event, HighwaterClient, type ServerFrame, type WebSocketLike } from "../../src/client";
import { makePersistDir, startWrangler, type Wrangler } from "../e2e/harness/wrangler";
import { expectOrderedOnce, shownItems, TASK, TOKEN, useConsole } from "./console-harness";

describe("browser console: live updates", () => {
  let worker: Wrangler;
  let api: HighwaterClient;
  const harness = useConsole();
  const { newPage, screenshot } = harness;
  beforeAll(() => {
    ({ worker, api } = harness);
  });

  it("a stalled socket shows reconnecting, then catches up with every missed event once", async () => {
    const s = await api.createSession({ title: "Stalled" });
    const { page, pageErrors } = await newPage(TOKEN);
    // Socket 0 is stalled on demand (frames dropped both ways, as on a dead link that still
    // looks open); while `refuse` holds, new sockets are closed at once.
    const links: { stalled: boolean }[] = [];
    let refuse = false;
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      if (refuse) {
        void ws.close({ code: 1011, reason: "test: refused" });
        return;
      }
      const link = { stalled: false };
      links.push(link);
      const server = ws.connectToServer();
      ws.onMessage((m) => {
        if (!link.stalled) server.send(m);
      });
      server.onMessage((m) => {
        if (!link.stalled) ws.send(m);
      });
    });
    await page.goto(`${worker.url}/s/${s.id}`);
    await page.locator(".conn", { hasText: "live" }).waitFor();
    await page.evaluate(`
      window.connStates = [];
      const el = () => document.querySelector(".conn");
      new MutationObserver(() => {
        const s = el()?.dataset.state;
        if (s && window.connStates.at(-1) !== s) window.connStates.push(s);
      }).observe(document.querySelector("#app"), { subtree: true, attributes: true, childList: true });
    `);

    links[0]!.stalled = true;
    refuse = true;
    // A whole turn happens while the page hears nothing.
    await api.sendMessage(s.id, TASK);
    await expect.poll(async () => (await api.getSession(s.id)).openTurn, { timeout: 60_000 }).toBe(false);
    expect(await page.locator(".conn").getAttribute("data-state")).toBe("live");
    // No pong for ~20 s: the page says so, and retries.
    await page.locator('.conn[data-state="reconnecting"], .conn[data-state="offline"]').waitFor({ timeout: 60_000 });
    await screenshot(page, "console-reconnecting.png");
    refuse = false;
    await page.locator(".conn", { hasText: "live" }).waitFor({ timeout: 60_000 });
    await page.locator(".transcript .turn[data-reason=completed]").waitFor({ timeout: 30_000 });
    const states = (await page.evaluate("window.connStates")) as string[];
    expect(states[0]).toBe("reconnecting");
    expect(states.at(-1)).toBe("live");

    const shown = await shownItems(page);
    expectOrderedOnce(shown);
    expect(shown.map((i) => i.seq)).toEqual((await api.transcript(s.id)).items.map((i) => i.seq));
    expect(links.length).toBeGreaterThan(1);
    expect(pageErrors.filter((e) => !e.includes("WebSocket"))).toEqual([]);
    await page.close();
  });

  it("a page opened mid-answer shows the text streamed so far", async () => {
    // A slow demo stream (1.5 s between chunks), so that there is time to open a page mid-answer.
    const dir = makePersistDir("hw-browser-slow-");
    const slow = await startWrangler({ persistTo: dir, vars: { API_TOKENS: TOKEN, HW_DEMO_CHUNK_DELAY_MS: "1500" } });
    const pages: Page[] = [];
    try {
      const client = new HighwaterClient({ baseUrl: slow.url, token: TOKEN });
      const s = await client.createSession({ title: "Mid-stream", tools: ["list_files"] });
      const first = await newPage(TOKEN);
      pages.push(first.page);
      await first.page.goto(`${slow.url}/s/${s.id}`);
      await first.page.locator(".conn", { hasText: "live" }).waitFor();
      await client.sendMessage(s.id, TASK);
      // The demo streams a preamble, calls list_files, then streams its answer (6 chunks). The late
      // page opens once the answer is streaming: opened in the gap between the two model steps it
      // would have nothing to replay.
      await first.page
        .locator(".transcript .item.tool .badge[data-state]", { hasText: "ok" })
        .waitFor({ timeout: 60_000 });
      const streamed = first.page.locator(".streaming .msg .text");
      await expect
        .poll(async () => (await streamed.textContent())?.length ?? 0, { timeout: 30_000 })
        .toBeGreaterThan(0);

      const late = await newPage(TOKEN);
      pages.push(late.page);
      const replays: string[] = [];
      late.page.on("websocket", (ws) =>
        ws.on("framereceived", (f) => {
          if (typeof f.payload === "string" && f.payload.includes('"replace":true')) replays.push(f.payload);
        }),
      );
      await late.page.goto(`${slow.url}/s/${s.id}`);
      const lateText = late.page.locator(".streaming .msg .text");
      await expect
        .poll(async () => (await lateText.textContent())?.length ?? 0, { timeout: 30_000 })
        .toBeGreaterThan(0);
      expect(replays.length).toBeGreaterThan(0);
      const replay = JSON.parse(replays[0]!) as { invocationId: string; attempt: number; kind: string; text: string };
      expect(replay).toMatchObject({ type: "delta", attempt: 1, kind: "text", replace: true });
      // What the late page shows is what the first page had streamed: the same text.
      await expect.poll(async () => (await lateText.textContent()) === (await streamed.textContent())).toBe(true);
      await screenshot(late.page, "console-midstream.png");
      expect(first.pageErrors).toEqual([]);
      expect(late.pageErrors).toEqual([]);
      await client.stop(s.id);
    } finally {
      // A page left open would keep reconnecting to a stopped worker for the rest of the suite.
      for (const p of pages) await p.close();
      await slow.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("client: reconnects after dropped sockets and delivers each event once, in order", async () => {
    const s = await api.createSession({ title: "Reconnect" });
    const sockets: WebSocketLike[] = [];
    class Tracked extends WebSocket {
      constructor(url: string, options?: { headers?: Record<string, string> }) {
        super(url, options);
        sockets.push(this);
      }
    }
    const client = new HighwaterClient({ baseUrl: worker.url, token: TOKEN, WebSocket: Tracked });
    const seen: Event[] = [];
    let closedTurn = false;
    const conn = client.connect(s.id, {
      minDelayMs: 50,
      onFrame: (f: ServerFrame) => {
        if (f.type !== "event") return;
        seen.push(f.event);
        if (f.event.actions?.turnClose) closedTurn = true;
      },
    });
    await expect.poll(() => conn.state).toBe("open");
    await expect(conn.send({ type: "message", text: TASK, idempotencyKey: "k1" })).resolves.toMatchObject({
      seq: expect.any(Number),
    });

    // Drop the socket a few times, at least once right after the message was accepted.
    for (let i = 0; i < 3 && (i === 0 || !closedTurn); i++) {
      await new Promise((r) => setTimeout(r, 150));
      sockets.at(-1)?.close(4002, "test drop");
    }
    await expect.poll(() => closedTurn, { timeout: 60_000 }).toBe(true);
    await expect.poll(() => sockets.length > 1 && conn.state === "open").toBe(true);
    conn.close();

    expect(sockets.length).toBeGreaterThan(1);
    const all = (await client.events(s.id, 0, 1000)).events;
    expect(seen.map((e) => e.seq)).toEqual(all.map((e) => e.seq));
    expect(seen.map((e) => e.digest)).toEqual(all.map((e) => e.digest));
  });
});
