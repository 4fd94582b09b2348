/**
 * The console against what a new user found (a cut axis label and provider, "1 events", a fork
 * that did not say so, "YOU VIA INBOX:CI", records shown nowhere, the demo task lost on return),
 * tools from outside (source and effect on cards, the create form's tools, the recovery notice)
 * and traces (a download per closed turn, and its spans on the timeline). In Debian's Chromium
 * against a real `wrangler dev` with the demo model; routes other branches build (`/v1/tools`,
 * `/trace`) are answered by the test, as their contract says.
 */
import { readFileSync, rmSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type Event, HighwaterClient, type Session } from "../../src/client";
import { makePersistDir, startWrangler, type Wrangler } from "../e2e/harness/wrangler";

const TOKEN = "browser-token";
const TASK = "Draft the release notes for version two";
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"];

describe("browser console: what a new user found, tools and traces", () => {
  let worker: Wrangler;
  let browser: Browser;
  let persistTo: string;
  let api: HighwaterClient;
  const errors = new Map<Page, string[]>();

  beforeAll(async () => {
    persistTo = makePersistDir("hw-browser-found-");
    worker = await startWrangler({ persistTo, vars: { API_TOKENS: TOKEN } });
    api = new HighwaterClient({ baseUrl: worker.url, token: TOKEN, WebSocket });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  /** A page with the token in this tab; `/v1/tools` answers 404 unless a test routes it. */
  async function newPage(viewport = { width: 1280, height: 1000 }): Promise<Page> {
    const page = await browser.newPage({ viewport, acceptDownloads: true });
    await page.addInitScript(`sessionStorage.setItem("highwater.token", ${JSON.stringify(TOKEN)})`);
    const seen: string[] = [];
    errors.set(page, seen);
    page.on("pageerror", (err) => seen.push(String(err)));
    return page;
  }

  async function demoSession(title: string): Promise<Session> {
    const s = await api.createSession({ title });
    await api.sendMessage(s.id, TASK);
    await expect.poll(async () => (await api.getSession(s.id)).openTurn, { timeout: 60_000 }).toBe(false);
    return s;
  }

  /**
   * Serves `events` as the session's log over its socket (a real session, so every other route
   * answers), with `patch` over the session resource: tools and traces the worker here lacks.
   */
  async function fakeLog(page: Page, title: string, build: (add: (e: Partial<Event>) => void) => void, patch = {}) {
    const s = await api.createSession({ title });
    const t0 = Date.parse(s.createdAt);
    const events: Event[] = [];
    build((e) =>
      events.push({
        author: "runtime",
        modelVisibility: "hidden",
        ...e,
        seq: events.length + 1,
        sessionId: s.id,
        at: new Date(t0 + (e.at ? Number(e.at) : events.length) * 1000).toISOString(),
        digest: "f".repeat(64),
      } as Event),
    );
    const session = { ...s, highWater: events.length, openTurn: false, ...patch };
    await page.route(`**/v1/sessions/${s.id}`, (route) => route.fulfill({ json: session }));
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      ws.send(JSON.stringify({ type: "ready", session }));
      for (const e of events) ws.send(JSON.stringify({ type: "event", event: e }));
      ws.onMessage((m) => {
        if (m === '{"type":"ping"}') ws.send('{"type":"pong"}');
      });
    });
    return { id: s.id, events };
  }

  /** One closed turn with a built-in, an MCP and a custom tool call; seconds 0 to 10 exactly. */
  function toolTurn(add: (e: Partial<Event>) => void) {
    const entry = (name: string, source: string, effect: string) => ({ name, source, effect, schemaDigest: "0" });
    add({ at: "0", actions: { stateDelta: { session: {} } } } as Partial<Event>);
    add({
      at: "0",
      actions: {
        stateDelta: {
          toolset: {
            digest: "d1",
            tools: [
              entry("read_file", "builtin", "read"),
              entry("everything__echo", "mcp:everything", "read"),
              entry("lookup_order", "custom", "write"),
            ],
            unavailable: [],
          },
        },
      },
    } as Partial<Event>);
    const ids = { turnId: "turn-1", runId: "run-1", invocationId: "inv-1" };
    add({
      at: "0",
      author: "user",
      modelVisibility: "visible",
      turnId: "turn-1",
      content: { type: "text", text: "Use the tools" },
    });
    add({
      at: "1",
      ...ids,
      actions: { modelRequest: { throughSeq: 3, checkpointId: null, estimatedTokens: 900, requestDigest: "0" } },
    });
    const calls: [string, string, "read" | "write", "ok" | "interrupted"][] = [
      ["c1", "read_file", "read", "ok"],
      ["c2", "everything__echo", "read", "ok"],
      ["c3", "lookup_order", "write", "interrupted"],
    ];
    calls.forEach(([callId, name, effect, status], i) => {
      add({
        at: String(2 + i),
        author: "model",
        modelVisibility: "visible",
        ...ids,
        content: { type: "functionCall", callId, name, args: { n: i } },
      });
      add({
        at: String(2 + i),
        ...ids,
        actions: { toolDispatch: { callId, tool: name, effect, idempotencyKey: `hw_${callId}` } },
      });
      add({
        at: String(3 + i),
        author: "tool",
        modelVisibility: "visible",
        ...ids,
        content: { type: "functionResponse", callId, name, status, response: { ok: status === "ok" } },
        ...(i > 0
          ? { actions: { toolRecovery: { callId, strategy: status === "ok" ? "rerun" : "interrupted" } } }
          : {}),
      } as Partial<Event>);
    });
    add({
      at: "9",
      author: "model",
      modelVisibility: "visible",
      ...ids,
      content: { type: "text", text: "Done." },
      actions: { tokenUsage: { inputTokens: 9, outputTokens: 2 } },
    });
    add({ at: "10", turnId: "turn-1", actions: { turnClose: { reason: "completed" } } });
  }

  it('a session of one event says "1 event"', async () => {
    const s = await api.createSession({ title: "One event" });
    const page = await newPage();
    await page.goto(`${worker.url}/s/${s.id}`);
    await expect.poll(() => page.textContent(".meta .count")).toBe("1 event");
    expect(errors.get(page)).toEqual([]);
    await page.close();
  });

  it("the provider's name and notes are read whole in the create form", async () => {
    const page = await newPage();
    await page.goto(`${worker.url}/`);
    const select = page.locator("#new-provider");
    await select.locator("option").first().waitFor({ state: "attached" });
    // The chosen option's text, in the select's font, fits inside the select with its arrow.
    const fits = (await page.evaluate(`(() => {
      const s = document.querySelector("#new-provider");
      const ctx = document.createElement("canvas").getContext("2d");
      ctx.font = getComputedStyle(s).font;
      const text = s.selectedOptions[0].textContent.trim();
      const pad = parseFloat(getComputedStyle(s).paddingLeft) + parseFloat(getComputedStyle(s).paddingRight);
      return { text, need: Math.ceil(ctx.measureText(text).width + pad + 20), have: s.clientWidth };
    })()`)) as { text: string; need: number; have: number };
    expect(fits.text).toContain("default");
    expect(fits.need).toBeLessThanOrEqual(fits.have);
    expect(errors.get(page)).toEqual([]);
    await page.close();
  });

  it("the timeline's last axis label is inside the chart", async () => {
    const timeline = await newPage();
    const { id } = await fakeLog(timeline, "Axis", toolTurn);
    await timeline.goto(`${worker.url}/s/${id}#timeline`);
    await timeline.locator(".timeline svg .tick-label").first().waitFor();
    const labels = (await timeline.evaluate(`(() => {
      const svg = document.querySelector(".timeline svg").getBoundingClientRect();
      return [...document.querySelectorAll(".timeline .tick-label")].map((t) => {
        const r = t.getBoundingClientRect();
        return { text: t.textContent, left: r.left - svg.left, right: svg.right - r.right };
      });
    })()`)) as { text: string; left: number; right: number }[];
    expect(labels.at(-1)!.text).toBe("+10.0 s");
    for (const l of labels) expect(Math.min(l.left, l.right)).toBeGreaterThanOrEqual(0);
    expect(errors.get(timeline)).toEqual([]);
    await timeline.close();
  });

  it("a fork says so and links to its parent; an inbox message is labelled by its source", async () => {
    const parent = await demoSession("Parent");
    const fork = await api.fork(parent.id, 3);
    await api.inbox(fork.id, { source: "ci", text: "The build is green" });
    const page = await newPage();
    await page.goto(`${worker.url}/s/${fork.id}`);
    const lineage = page.locator(".meta .lineage.fork");
    await lineage.waitFor();
    expect(await lineage.textContent()).toMatch(/fork of\s+\S+…\s+at seq 3/);
    const inbox = page.locator(".transcript .msg.user", { hasText: "The build is green" });
    await inbox.waitFor({ timeout: 60_000 });
    expect((await inbox.locator(".who").textContent())?.trim()).toBe("inbox · ci");
    await lineage.getByRole("link").click();
    await page.waitForURL(`${worker.url}/s/${parent.id}`);
    await expect.poll(() => page.textContent("h1")).toBe("Parent");
    expect(await page.locator(".meta .lineage").count()).toBe(0);
    expect(errors.get(page)).toEqual([]);
    await page.close();
  });

  it("shows the session's work records: topics, a revision and the entries it does not cover", async () => {
    const s = await api.createSession({ title: "Records" });
    await api.putRecord(s.id, "plan", { content: "Ship version two on Friday.", expectedRevision: 0 });
    await api.appendRecordEntry(s.id, "plan", { text: "QA found a blocker" });
    const page = await newPage();
    await page.goto(`${worker.url}/s/${s.id}`);
    await page.getByRole("tab", { name: "Records" }).click();
    const topic = page.locator(".topic-list li[data-topic=plan]");
    await topic.waitFor();
    expect(await topic.textContent()).toContain("revision 1 · 1 entry");
    await topic.getByRole("button", { name: "plan" }).click();
    await expect.poll(() => page.locator(".record-content").textContent()).toBe("Ship version two on Friday.");
    expect(await page.locator(".record .entries li").allTextContents()).toEqual([
      expect.stringContaining("QA found a blocker"),
    ]);
    // Written while the page is open: it follows.
    await api.appendRecordEntry(s.id, "plan", { text: "Blocker fixed" });
    await expect.poll(() => page.locator(".record .entries li").count()).toBe(2);
    expect(errors.get(page)).toEqual([]);
    await page.close();
  });

  it("keeps the demo preset's task in the composer when the session page is reopened", async () => {
    const page = await newPage();
    await page.goto(`${worker.url}/`);
    await page.getByRole("button", { name: "Demo preset" }).click();
    await page.getByRole("button", { name: "New session" }).click();
    await page.waitForURL(/\/s\/[0-9a-f]{64}$/);
    const id = new URL(page.url()).pathname.split("/")[2]!;
    expect(await page.getByLabel("Message").inputValue()).toBe(TASK);
    await page.getByRole("link", { name: "← Sessions" }).click();
    await page.locator(`.sessions li[data-id="${id}"] a`).click();
    await page.waitForURL(`${worker.url}/s/${id}`);
    await expect.poll(() => page.getByLabel("Message").inputValue()).toBe(TASK);
    await page.reload();
    await expect.poll(() => page.getByLabel("Message").inputValue()).toBe(TASK);
    // Sent, it is gone.
    await page.locator(".conn", { hasText: "live" }).waitFor();
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".transcript .msg.user", { hasText: TASK }).waitFor({ timeout: 60_000 });
    await page.reload();
    await page.locator(".conn", { hasText: "live" }).waitFor();
    expect(await page.getByLabel("Message").inputValue()).toBe("");
    await api.stop(id);
    expect(errors.get(page)).toEqual([]);
    await page.close();
  });

  it("the create form lists the tools of /v1/tools and makes approval rules of them; without the route, the built-ins", async () => {
    const page = await newPage();
    const tools = [
      { name: "read_file", source: "builtin", effect: "read", description: "", inputSchema: {} },
      { name: "everything__echo", source: "mcp:everything", effect: "read", description: "", inputSchema: {} },
      { name: "lookup_order", source: "custom", effect: "write", description: "", inputSchema: {} },
    ];
    await page.route("**/v1/tools", (route) => route.fulfill({ json: { tools, unavailable: [] } }));
    await page.goto(`${worker.url}/`);
    const listed = page.locator("fieldset.tools label.check");
    await expect.poll(() => listed.count()).toBe(3);
    expect(await page.locator("fieldset.tools [data-tool=everything__echo] .badge.source").textContent()).toBe(
      "mcp:everything",
    );
    expect(await page.locator("fieldset.tools [data-tool=lookup_order] .badge.source").textContent()).toBe("custom");
    // What the form asks the server for; the worker here has no MCP tools, so a session stands in.
    const stand = await api.createSession({ title: "Ask before echo" });
    const bodies: unknown[] = [];
    await page.route("**/v1/sessions", (route) => {
      if (route.request().method() !== "POST") return route.continue();
      bodies.push(route.request().postDataJSON());
      return route.fulfill({ status: 201, json: stand });
    });
    await page.getByLabel("Title").fill("Ask before echo");
    await page.getByRole("checkbox", { name: "everything__echo" }).check();
    await page.getByRole("button", { name: "New session" }).click();
    await page.waitForURL(`${worker.url}/s/${stand.id}`);
    expect(bodies).toEqual([
      expect.objectContaining({ title: "Ask before echo", approvals: [{ tool: "everything__echo" }] }),
    ]);

    const old = await newPage();
    await old.route("**/v1/tools", (route) =>
      route.fulfill({ status: 404, json: { error: { code: "not_found", message: "no such route" } } }),
    );
    await old.goto(`${worker.url}/`);
    await old.locator("fieldset.tools [data-tool=write_file]").waitFor();
    expect(await old.locator("fieldset.tools label.check code").allTextContents()).toEqual(
      expect.arrayContaining(["list_files", "write_file", "http_fetch"]),
    );
    expect(await old.locator("fieldset.tools .badge.source").allTextContents()).toEqual(
      expect.arrayContaining(["builtin"]),
    );
    expect(errors.get(page)).toEqual([]);
    expect(errors.get(old)).toEqual([]);
    await page.close();
    await old.close();
  });

  it("tool cards show source and effect; the recovery notice names the re-run and interrupted calls with their source", async () => {
    const page = await newPage();
    const notice = { atSeq: 14, rerun: ["c2"], needsReview: ["c3"], reissued: [] };
    const { id } = await fakeLog(page, "Tools", toolTurn, { recoveryNotice: notice });
    await page.goto(`${worker.url}/s/${id}`);
    const cards = page.locator(".transcript .item.tool");
    await expect.poll(() => cards.count()).toBe(3);
    expect(await cards.locator(".tool-name").allTextContents()).toEqual([
      "read_file",
      "everything__echo",
      "lookup_order",
    ]);
    expect(await cards.locator(".badge.source").allTextContents()).toEqual(["builtin", "mcp:everything", "custom"]);
    expect(await cards.locator(".badge.effect").allTextContents()).toEqual(["read", "read", "write"]);
    const banner = page.getByRole("region", { name: "Recovery notice" });
    const rerun = (await banner.locator(".rerun li").textContent())?.replace(/\s+/g, " ");
    const review = (await banner.locator(".needs-review li").textContent())?.replace(/\s+/g, " ");
    expect(rerun).toContain("everything__echo mcp:everything read");
    expect(review).toContain("lookup_order custom write");
    expect(errors.get(page)).toEqual([]);
    await page.close();
  });

  it("each closed turn downloads its trace with the token, and the timeline draws the trace's spans", async () => {
    const page = await newPage();
    const { id, events } = await fakeLog(page, "Traced", toolTurn);
    const ns = (i: number) => String(BigInt(Date.parse(events[i]!.at)) * 1_000_000n);
    const span = (name: string, op: string, a: number, b: number, tool?: string) => ({
      traceId: "a".repeat(32),
      spanId: `${a}`.padStart(16, "0"),
      name,
      startTimeUnixNano: ns(a),
      endTimeUnixNano: ns(b),
      attributes: [
        { key: "gen_ai.operation.name", value: { stringValue: op } },
        ...(tool ? [{ key: "gen_ai.tool.name", value: { stringValue: tool } }] : []),
      ],
    });
    const trace = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span("invoke_agent", "invoke_agent", 2, 14),
                span("chat demo", "chat", 3, 13),
                span("execute_tool read_file", "execute_tool", 5, 6, "read_file"),
                span("execute_tool everything__echo", "execute_tool", 8, 9, "everything__echo"),
              ],
            },
          ],
        },
      ],
    };
    const asked: { turnId: string | null; auth: string | undefined }[] = [];
    await page.route(`**/v1/sessions/${id}/trace?**`, (route) => {
      const url = new URL(route.request().url());
      asked.push({ turnId: url.searchParams.get("turnId"), auth: route.request().headers().authorization });
      return route.fulfill({ json: trace });
    });
    await page.goto(`${worker.url}/s/${id}`);
    const turn = page.locator(".transcript .turn[data-reason=completed]");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      turn.getByRole("button", { name: "Download trace" }).click(),
    ]);
    expect(JSON.parse(readFileSync(await download.path(), "utf8"))).toEqual(trace);
    expect(asked).toEqual([{ turnId: "turn-1", auth: `Bearer ${TOKEN}` }]);

    await page.getByRole("tab", { name: "Timeline" }).click();
    const row = page.locator(".turn-traces li[data-turn=turn-1]");
    await row.getByRole("button", { name: "Show spans" }).click();
    await page.locator(".trace-shown").waitFor();
    expect(await page.locator(".timeline rect.bar.tool").count()).toBe(2);
    expect(await page.locator(".timeline rect.bar.model").count()).toBe(1);
    expect(await page.locator(".timeline rect.bar.turn").count()).toBe(1);
    expect(asked.at(-1)?.turnId).toBe("turn-1");

    // A server without traces: the page says so and stays usable.
    await page.unroute(`**/v1/sessions/${id}/trace?**`);
    await page.route(`**/v1/sessions/${id}/trace?**`, (route) =>
      route.fulfill({ status: 404, json: { error: { code: "not_found", message: "no such route" } } }),
    );
    await page.getByRole("button", { name: "Back to the whole session" }).click();
    await row.getByRole("button", { name: "Show spans" }).click();
    await page.getByRole("alert").filter({ hasText: "no trace" }).waitFor();
    expect(await page.locator(".timeline rect.bar.tool").count()).toBe(3);
    expect(errors.get(page)).toEqual([]);
    await page.close();
  });
});
