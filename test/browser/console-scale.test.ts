/** The console with a 5,000-event session: frame time measured, not asserted. */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Event, HighwaterClient } from "../../src/client";
import { REPO_ROOT, type Wrangler } from "../e2e/harness/wrangler";
import { TOKEN, useConsole } from "./console-harness";

describe("browser console: scale", () => {
  let worker: Wrangler;
  let api: HighwaterClient;
  const harness = useConsole();
  const { newPage } = harness;
  beforeAll(() => {
    ({ worker, api } = harness);
  });

  it("stays smooth with 5,000 events (frame time measured, not asserted)", async () => {
    const s = await api.createSession({ title: "Five thousand" });
    const base = await api.getSession(s.id);
    const N = 5_000;
    const at = (i: number) => new Date(Date.parse(base.createdAt) + i * 1000).toISOString();
    const events: Event[] = [];
    const add = (e: Omit<Event, "seq" | "sessionId" | "digest" | "at">) =>
      events.push({
        ...e,
        seq: events.length + 1,
        sessionId: s.id,
        at: at(events.length),
        digest: "f".repeat(64),
      } as Event);
    add({ author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { session: {} } } });
    for (let n = 0; events.length < N; n++) {
      const turnId = `t${n}`;
      const ids = { turnId, runId: `r${n}`, invocationId: `i${n}` };
      add({
        author: "user",
        modelVisibility: "visible",
        turnId,
        content: { type: "text", text: `Step ${n}: keep going` },
      });
      add({
        author: "runtime",
        modelVisibility: "hidden",
        ...ids,
        actions: {
          modelRequest: {
            throughSeq: events.length,
            checkpointId: null,
            estimatedTokens: 1000 + n,
            requestDigest: "0".repeat(64),
          },
        },
      });
      add({
        author: "model",
        modelVisibility: "visible",
        ...ids,
        content: {
          type: "functionCall",
          callId: `c${n}`,
          name: "write_file",
          args: { path: `notes/${n}.md`, content: "x".repeat(200) },
        },
        actions: { tokenUsage: { inputTokens: 1000, outputTokens: 20 } },
      });
      add({
        author: "runtime",
        modelVisibility: "hidden",
        ...ids,
        actions: { toolDispatch: { callId: `c${n}`, tool: "write_file", effect: "write", idempotencyKey: `k${n}` } },
      });
      add({
        author: "tool",
        modelVisibility: "visible",
        ...ids,
        content: {
          type: "functionResponse",
          callId: `c${n}`,
          name: "write_file",
          status: "ok",
          response: { ok: true, bytes: 200 },
        },
      });
      add({
        author: "runtime",
        modelVisibility: "hidden",
        ...ids,
        actions: {
          modelRequest: {
            throughSeq: events.length,
            checkpointId: null,
            estimatedTokens: 1100 + n,
            requestDigest: "0".repeat(64),
          },
        },
      });
      add({
        author: "model",
        modelVisibility: "visible",
        ...ids,
        content: { type: "text", text: `Wrote notes/${n}.md. ${"Lorem ipsum dolor sit amet. ".repeat(4)}` },
        actions: { tokenUsage: { inputTokens: 1100, outputTokens: 40 } },
      });
      add({ author: "runtime", modelVisibility: "hidden", turnId, actions: { turnClose: { reason: "completed" } } });
    }
    events.length = N;
    const session = { ...base, highWater: N, headDigest: "f".repeat(64), status: "running", openTurn: true };
    const { page, pageErrors } = await newPage(TOKEN);
    await page.route(`**/v1/sessions/${s.id}`, (route) => route.fulfill({ json: session }));
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      ws.send(JSON.stringify({ type: "ready", session }));
      for (const e of events) ws.send(JSON.stringify({ type: "event", event: e }));
      ws.onMessage((m) => {
        if (m === '{"type":"ping"}') ws.send('{"type":"pong"}');
      });
      // Then a long answer streams, a delta every 16 ms for 4 s.
      let k = 0;
      const timer = setInterval(() => {
        ws.send(JSON.stringify({ type: "delta", invocationId: "live", attempt: 1, kind: "text", text: `word${k++} ` }));
        if (k > 250) clearInterval(timer);
      }, 16);
    });
    await page.addInitScript("window.__hwDraws = []");
    const t0 = Date.now();
    await page.goto(`${worker.url}/s/${s.id}`);
    await page.locator(".transcript > li").first().waitFor({ timeout: 60_000 });
    await page.locator(".streaming .msg .text").waitFor({ timeout: 60_000 });
    const firstPaint = Date.now() - t0;
    const frames = (await page.evaluate(`new Promise((resolve) => {
      const gaps = []; let last = performance.now(); const end = last + 3000;
      const tick = (t) => { gaps.push(t - last); last = t; if (t < end) requestAnimationFrame(tick); else resolve(gaps); };
      requestAnimationFrame(tick);
    })`)) as number[];
    const draws = ((await page.evaluate("window.__hwDraws")) as number[]).slice(1);
    const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;
    const report = {
      events: N,
      itemsInDom: await page.locator(".transcript > li").count(),
      firstPaintMs: firstPaint,
      frameGapP50: pct(frames, 0.5).toFixed(1),
      frameGapP95: pct(frames, 0.95).toFixed(1),
      frameGapMax: Math.max(...frames).toFixed(1),
      drawP50: pct(draws, 0.5).toFixed(2),
      drawP95: pct(draws, 0.95).toFixed(2),
      draws: draws.length,
    };
    console.log(`highwater console, 5,000 events: ${JSON.stringify(report)}`);
    mkdirSync(join(REPO_ROOT, "test-results"), { recursive: true });
    // The viewport only: the whole page is 400 items tall.
    await page.screenshot({ path: join(REPO_ROOT, "test-results", "console-5000.png") });
    // The fold is complete: the last event is on screen.
    expect(
      await page.locator(`.transcript > li[data-seq="${N}"], .transcript > li`).last().getAttribute("data-seq"),
    ).toBeTruthy();
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
