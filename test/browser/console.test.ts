/**
 * The browser console in Debian's Chromium against a real `wrangler dev` with the demo model:
 * the create form with an approval rule and the approval card (bound to its `argsDigest`),
 * reject, the four views over real data, the recovery banner dismissed for every page, a
 * stalled socket that reconnects and catches up, a page opened mid-answer, keyboard only at
 * 375 px, and the frame time of a 5,000-event session. Also the typed client's reconnect from
 * Node, with sockets dropped mid-turn. Screenshots go to test-results/.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type Event, HighwaterClient, type ServerFrame, type WebSocketLike } from "../../src/client";
import { eventKind } from "../../src/contract/kinds";
import {
  makePersistDir,
  REPO_ROOT,
  restartWrangler,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../e2e/harness/wrangler";

const TOKEN = "browser-token";
// Not a word like "summary": the demo model answers a summary request with a checkpoint instead.
const TASK = "Draft the release notes for version two";
const DEMO_TOOLS = ["write_file", "list_files", "read_file", "search_files"];
const FINAL = "[demo model] This answer comes from";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

type Shown = { seq: number; kind: string; text: string };

/** What the transcript shows, item by item (committed items only, not the streaming area). */
function shownItems(page: Page): Promise<Shown[]> {
  return page.$$eval(".transcript > li", (lis) =>
    lis.map((li) => ({
      seq: Number(li.getAttribute("data-seq")),
      kind: li.className,
      text: (li.textContent ?? "").replace(/\s+/g, " ").trim(),
    })),
  );
}

function expectOrderedOnce(items: Shown[]) {
  const keys = items.map((i) => `${i.kind.split(" ")[1]}:${i.seq}`);
  expect(new Set(keys).size).toBe(keys.length);
  const seqs = items.map((i) => i.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}

describe("browser console", () => {
  let worker: Wrangler;
  let browser: Browser;
  let persistTo: string;
  let api: HighwaterClient;

  beforeAll(async () => {
    persistTo = makePersistDir("hw-browser-");
    worker = await startWrangler({ persistTo, vars: { API_TOKENS: TOKEN } });
    api = new HighwaterClient({ baseUrl: worker.url, token: TOKEN, WebSocket });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  /** A page in a fresh browser profile; with `token`, as if it had been pasted in this tab before. */
  async function newPage(
    token?: string,
    viewport = { width: 1280, height: 1000 },
  ): Promise<{ page: Page; pageErrors: string[] }> {
    const pageErrors: string[] = [];
    const page = await browser.newPage({ viewport });
    // Page scripts are strings: this file is type-checked without the DOM library.
    if (token) await page.addInitScript(`sessionStorage.setItem("highwater.token", ${JSON.stringify(token)})`);
    page.on("pageerror", (err) => pageErrors.push(String(err)));
    if (process.env.HW_DEBUG_PAGES) {
      page.on("console", (m) => console.log(`[page ${m.type()}] ${m.text()}`));
      page.on("pageerror", (e) => console.log(`[page pageerror] ${e.stack ?? e}`));
      page.on("crash", () => console.log("[page crash]"));
      page.on("load", () => {
        setTimeout(() => {
          page
            .evaluate(
              `[sessionStorage.getItem("highwater.token"), document.querySelector("#app")?.innerText.slice(0, 120)]`,
            )
            .then((v) => console.log(`[page state] ${page.url()} ${JSON.stringify(v)}`))
            .catch(() => {});
        }, 3000);
      });
      page.on("requestfailed", (r) => console.log(`[page requestfailed] ${r.url()} ${r.failure()?.errorText}`));
      page.on("response", (r) => console.log(`[page response] ${r.status()} ${r.url()}`));
      page.on("websocket", (ws) => {
        console.log(`[page ws] open ${ws.url()}`);
        ws.on("close", () => console.log(`[page ws] close ${ws.url()}`));
        ws.on("framereceived", (f) => console.log(`[page ws] <- ${String(f.payload).slice(0, 80)}`));
      });
    }
    page.on("console", (msg) => {
      if (msg.type() === "error") pageErrors.push(msg.text());
    });
    return { page, pageErrors };
  }

  /** The whole page at its full height, so the sticky composer is drawn at the bottom. */
  async function screenshot(page: Page, name: string) {
    mkdirSync(join(REPO_ROOT, "test-results"), { recursive: true });
    const size = page.viewportSize()!;
    const height = (await page.evaluate("document.documentElement.scrollHeight")) as number;
    await page.setViewportSize({ width: size.width, height: Math.max(size.height, height) });
    await page.screenshot({ path: join(REPO_ROOT, "test-results", name) });
    await page.setViewportSize(size);
  }

  /** Runs a demo turn through the API and waits for it to close. */
  async function demoSession(title: string, options: Parameters<HighwaterClient["createSession"]>[0] = {}) {
    const s = await api.createSession({ title, ...options });
    await api.sendMessage(s.id, TASK);
    await expect.poll(async () => (await api.getSession(s.id)).openTurn, { timeout: 60_000 }).toBe(false);
    return s;
  }

  it("creates a demo session from the form and approves the write from its card", async () => {
    const { page, pageErrors } = await newPage();
    await page.goto(`${worker.url}/`);

    // The token is asked for once and kept in this tab.
    await page.getByLabel("Token").fill("wrong-token");
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("That token was not accepted.").waitFor();
    expect(pageErrors).toEqual([expect.stringContaining("401")]);
    pageErrors.length = 0;
    await page.getByLabel("Token").fill(TOKEN);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText("No sessions yet.").waitFor();
    expect(await page.evaluate("localStorage.length")).toBe(0);
    expect(await page.evaluate(`sessionStorage.getItem("highwater.token")`)).toBe(TOKEN);

    // Only configured providers are offered: here, the demo.
    expect(await page.locator("#new-provider option").allTextContents()).toEqual([expect.stringContaining("demo")]);
    await page.getByRole("button", { name: "Demo preset" }).click();
    expect(await page.getByLabel("Title").inputValue()).toBe("Demo: release notes");
    expect(await page.getByRole("checkbox", { name: "write_file" }).isChecked()).toBe(true);
    await screenshot(page, "console-home.png");
    await page.getByRole("button", { name: "New session" }).click();
    await page.waitForURL(/\/s\/[0-9a-f]{64}$/);
    const id = new URL(page.url()).pathname.split("/")[2]!;
    const created = await api.getSession(id);
    expect(created.title).toBe("Demo: release notes");

    await expect.poll(() => page.textContent("h1")).toBe("Demo: release notes");
    await page.locator(".meta .pill[data-status=idle]").waitFor();
    expect(await page.textContent(".meta .model")).toContain("demo model");
    await page.locator(".conn", { hasText: "live" }).waitFor();
    // The preset's task is in the composer, ready to send.
    expect(await page.getByLabel("Message").inputValue()).toBe(TASK);

    await page.evaluate(`
      window.sawStreaming = false;
      new MutationObserver(() => {
        if (document.querySelector(".streaming .msg .text")?.textContent) window.sawStreaming = true;
      }).observe(document.querySelector("#app"), { childList: true, subtree: true, characterData: true });
    `);
    await page.getByRole("button", { name: "Send" }).click();

    // The card shows the whole arguments and their size; the decision carries its digest.
    const approve = page.getByRole("button", { name: "Approve" });
    await approve.waitFor({ timeout: 60_000 });
    await page.locator(".meta .pill[data-status=waiting_approval]").waitFor();
    const pending = (await api.getSession(id)).pendingApprovals[0]!;
    const card = page.locator(".approval-card");
    const args = JSON.parse((await card.locator("pre.args").textContent()) ?? "null");
    expect(args).toEqual({ path: "notes/task.md", content: expect.stringContaining(TASK) });
    expect(await card.textContent()).toMatch(/Arguments, \d+(\.\d)? (B|KiB)/);
    expect(await card.textContent()).toContain(pending.argsDigest.slice(0, 12));
    await screenshot(page, "console-approval.png");
    await approve.click();

    const final = page.locator(".transcript .msg.assistant", { hasText: FINAL });
    await final.waitFor({ timeout: 60_000 });
    await page.locator(".transcript .turn[data-reason=completed]").waitFor();
    await page.locator(".meta .pill[data-status=idle]").waitFor();
    expect(await page.getByRole("button", { name: "Stop" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0);

    const events = (await api.events(id, 0, 1000)).events;
    const decision = events.find((e) => e.actions?.permissionDecision)!;
    expect(decision.actions!.permissionDecision).toMatchObject({
      decision: "approve",
      argsDigest: pending.argsDigest,
    });

    // Tool cards: collapsed, with state and duration.
    const tools = page.locator(".transcript .item.tool");
    expect(await tools.locator(".tool-name").allTextContents()).toEqual(DEMO_TOOLS);
    expect(await tools.locator(".badge[data-state]").allTextContents()).toEqual(DEMO_TOOLS.map(() => "ok"));
    expect(await tools.locator("details[open]").count()).toBe(0);
    expect(await tools.locator(".duration").count()).toBe(DEMO_TOOLS.length);
    expect(await page.evaluate("window.sawStreaming")).toBe(true);
    expect(await page.locator(".streaming > *").count()).toBe(0);
    // The header counts events live.
    await expect.poll(() => page.textContent(".meta .count")).toBe(`${events.length} events`);

    const before = await shownItems(page);
    expectOrderedOnce(before);
    expect(before.map((i) => i.seq)).toEqual((await api.transcript(id)).items.map((i) => i.seq));
    await screenshot(page, "console-done.png");

    // A reload replays the log from the start: the same items, nothing twice.
    await page.reload();
    await final.waitFor();
    await page.locator(".conn", { hasText: "live" }).waitFor();
    expect(await shownItems(page)).toEqual(before);

    // The list shows it, and follows a change without a reload.
    await page.getByRole("link", { name: "← Sessions" }).click();
    const row = page.locator(`.sessions li[data-id="${id}"]`);
    await row.waitFor();
    expect(await row.locator(".pill").textContent()).toBe("idle");
    await api.sendMessage(id, "Now list the notes folder");
    await row.locator(".badge.approvals", { hasText: "1 approval waiting" }).waitFor({ timeout: 60_000 });
    expect(await row.locator(".pill").textContent()).toBe("waiting approval");
    await screenshot(page, "console-list.png");
    await api.stop(id);
    await row.locator(".pill", { hasText: "idle" }).waitFor();
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("rejects a call from its card", async () => {
    const s = await api.createSession({ title: "Reject me", approvals: [{ tool: "write_file" }] });
    const { page, pageErrors } = await newPage(TOKEN);
    await page.goto(`${worker.url}/s/${s.id}`);
    await page.locator(".conn", { hasText: "live" }).waitFor();
    await page.getByLabel("Message").fill("Write the plan down");
    await page.getByLabel("Message").press("Enter");
    const reject = page.getByRole("button", { name: "Reject" });
    await reject.waitFor({ timeout: 60_000 });
    await reject.click();
    await page.locator(".transcript .turn[data-reason=completed]").waitFor({ timeout: 60_000 });
    expect(await page.locator(".item.tool").first().getAttribute("data-state")).toBe("rejected");
    const events = (await api.events(s.id, 0, 1000)).events;
    const decision = events.find((e) => e.actions?.permissionDecision)!;
    expect(decision.actions!.permissionDecision).toMatchObject({ decision: "reject", argsDigest: expect.any(String) });
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("a card whose arguments do not match the pending digest cannot be approved", async () => {
    const s = await api.createSession({ title: "Tampered", approvals: [{ tool: "write_file" }] });
    await api.sendMessage(s.id, TASK);
    await expect.poll(async () => (await api.getSession(s.id)).status, { timeout: 60_000 }).toBe("waiting_approval");
    const { page, pageErrors } = await newPage(TOKEN);
    // The page is told another digest than that of the arguments it shows.
    const forged = "0".repeat(64);
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      const server = ws.connectToServer();
      server.onMessage((m) => ws.send(String(m).replace(/"argsDigest":"[0-9a-f]{64}"/g, `"argsDigest":"${forged}"`)));
    });
    await page.goto(`${worker.url}/s/${s.id}`);
    const card = page.locator(".approval-card");
    await card.getByRole("alert").waitFor();
    expect(await card.getByRole("alert").textContent()).toContain("do not match");
    expect(await page.getByRole("button", { name: "Approve" }).isDisabled()).toBe(true);
    // Reject sends the digest of what was shown, which is the real call's: it is accepted.
    await page.getByRole("button", { name: "Reject" }).click();
    await expect.poll(async () => (await api.getSession(s.id)).openTurn, { timeout: 60_000 }).toBe(false);
    const decision = (await api.events(s.id, 0, 1000)).events.find((e) => e.actions?.permissionDecision)!;
    expect(decision.actions!.permissionDecision!.decision).toBe("reject");
    expect((decision.actions!.permissionDecision as { argsDigest?: string }).argsDigest).not.toBe(forged);
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("renders the Context, Log, Files and Timeline views from a demo session", async () => {
    const s = await demoSession("Four views");
    const { page, pageErrors } = await newPage(TOKEN);
    await page.goto(`${worker.url}/s/${s.id}`);
    await page.locator(".transcript .turn[data-reason=completed]").waitFor();

    // Context: the server's own numbers.
    const ctx = await api.context(s.id);
    await page.getByRole("tab", { name: "Context" }).click();
    const meter = page.getByRole("meter", { name: "Context used" });
    await meter.waitFor();
    expect(Number(await meter.getAttribute("aria-valuenow"))).toBe(Math.min(ctx.estimatedTokens, ctx.threshold));
    expect(Number(await meter.getAttribute("aria-valuemax"))).toBe(ctx.threshold);
    expect(await page.locator(".context").textContent()).toContain("Offloaded results");
    expect(await page.locator(".context").textContent()).toContain("Prompt-cache hit rate");
    await screenshot(page, "console-context.png");

    // Log: rows of seq, time, author, kind and digest; Verify; Export.
    await page.getByRole("tab", { name: "Log" }).click();
    const rows = page.locator("table.log tbody tr");
    await rows.first().waitFor();
    const all = (await api.events(s.id, 0, 1000)).events;
    expect(await rows.count()).toBe(all.length);
    const firstRow = (await rows.first().locator("td").allTextContents()).map((t) => t.trim());
    expect(firstRow[0]).toBe("1");
    expect(firstRow[2]).toBe("runtime");
    // The kind the log stores for it, one definition for the Worker and the console.
    expect(firstRow[3]).toContain(eventKind(all[0]!));
    expect(firstRow[3]).toMatch(/^state/);
    expect(firstRow[4]).toBe(all[0]!.digest.slice(0, 12));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.locator(".verify.ok", { hasText: `✓ verified ${all.length} events` }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export" }).click(),
    ]);
    expect(
      readFileSync(await download.path(), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(all.length);
    await screenshot(page, "console-log.png");

    // Files: the list and a file's content.
    await page.getByRole("tab", { name: "Files" }).click();
    await page.getByRole("button", { name: "notes/task.md" }).click();
    const content = await api.file(s.id, "notes/task.md");
    await expect.poll(() => page.locator(".file-content").textContent()).toBe(content);
    await screenshot(page, "console-files.png");

    // Runs: the demo turn is one run with no trigger, completed; no triggers yet.
    await page.getByRole("tab", { name: "Runs" }).click();
    const runs = await api.runs(s.id);
    await expect.poll(() => page.locator("table.runs tbody tr").count()).toBe(runs.runs.length);
    expect(await page.locator("table.runs tbody tr").first().textContent()).toContain("completed");
    expect(await page.getByText("No triggers").count()).toBe(1);
    await screenshot(page, "console-runs.png");

    // Timeline: a chart, with bars for the model calls and each tool call.
    await page.getByRole("tab", { name: "Timeline" }).click();
    await page.locator(".timeline svg").waitFor();
    const modelCalls = all.filter((e) => e.actions?.modelRequest).length;
    expect(await page.locator(".timeline rect.bar.model").count()).toBe(modelCalls);
    expect(await page.locator(".timeline rect.bar.tool").count()).toBe(DEMO_TOOLS.length);
    expect(await page.locator(".timeline rect.bar.turn").count()).toBe(1);
    expect(await page.locator(".totals").textContent()).toContain("Tool calls");
    await screenshot(page, "console-timeline.png");

    // Views are addressable: a reload stays on the timeline.
    await page.reload();
    await page.locator(".timeline svg").waitFor();
    expect(await page.getByRole("tab", { name: "Timeline" }).getAttribute("aria-selected")).toBe("true");
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("a dismissed recovery notice is dismissed in a second page and in the API", async () => {
    // A second worker that stops dead after the first tool dispatch (T1, failpoint F4).
    const sink = await startFailpointSink();
    const dir = makePersistDir("hw-browser-crash-");
    let crashed = await startWrangler({
      persistTo: dir,
      vars: { API_TOKENS: TOKEN, HW_FAILPOINT: "F4", HW_FAILPOINT_URL: sink.url },
    });
    try {
      const before = new HighwaterClient({ baseUrl: crashed.url, token: TOKEN });
      const s = await before.createSession({ title: "Crashed" });
      await before.sendMessage(s.id, TASK);
      await sink.waitFor("F4");
      crashed = await restartWrangler(crashed, { dropVars: ["HW_FAILPOINT", "HW_FAILPOINT_URL"] });
      const after = new HighwaterClient({ baseUrl: crashed.url, token: TOKEN });
      await expect
        .poll(
          async () => {
            const now = await after.getSession(s.id);
            return now.openTurn === false && now.recoveryNotice !== null;
          },
          { timeout: 60_000 },
        )
        .toBe(true);

      const a = await newPage(TOKEN);
      const b = await newPage(TOKEN);
      await a.page.goto(`${crashed.url}/s/${s.id}`);
      await b.page.goto(`${crashed.url}/s/${s.id}`);
      const bannerA = a.page.getByRole("region", { name: "Recovery notice" });
      const bannerB = b.page.getByRole("region", { name: "Recovery notice" });
      await bannerA.waitFor();
      await bannerB.waitFor();
      await b.page.locator(".conn", { hasText: "live" }).waitFor();
      expect(await bannerA.textContent()).toContain("Needs review");
      await expect.poll(() => bannerA.locator("code").allTextContents()).toEqual(["write_file"]);
      expect(await a.page.locator(".item.tool .badge.recovery").allTextContents()).toEqual(["needs review"]);
      await screenshot(a.page, "console-recovery.png");

      await a.page.getByRole("button", { name: "Dismiss" }).click();
      await bannerA.waitFor({ state: "detached" });
      // The other page hears it from the log, not from this browser's storage.
      await bannerB.waitFor({ state: "detached" });
      expect((await after.getSession(s.id)).recoveryNotice).toBeNull();
      const events = (await after.events(s.id, 0, 1000)).events;
      expect(events.at(-1)).toMatchObject({
        modelVisibility: "hidden",
        actions: { stateDelta: { recoveryNoticeDismissed: { atSeq: expect.any(Number) } } },
      });
      await b.page.reload();
      await b.page.locator(".item.recovery").waitFor();
      expect(await bannerB.count()).toBe(0);
      expect(a.pageErrors).toEqual([]);
      expect(b.pageErrors).toEqual([]);
      await a.page.close();
      await b.page.close();
    } finally {
      await crashed.stop();
      await sink.close();
      rmSync(dir, { recursive: true, force: true });
    }
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

  it("works with the keyboard only, at 375 px", async () => {
    const { page, pageErrors } = await newPage(TOKEN, { width: 375, height: 800 });
    await page.goto(`${worker.url}/`);
    await page.getByRole("button", { name: "Demo preset" }).waitFor();

    /** Tabs until the focused element's accessible name is `name`. */
    async function tabTo(name: string) {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press("Tab");
        const focused = (await page.evaluate(
          `(() => { const el = document.activeElement; return el ? (el.getAttribute("aria-label") || el.textContent || "").trim() : ""; })()`,
        )) as string;
        if (focused === name) return;
      }
      throw new Error(`could not tab to ${name}`);
    }

    await tabTo("Demo preset");
    await page.keyboard.press("Enter");
    await tabTo("New session");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/s\/[0-9a-f]{64}$/);
    await page.locator(".conn", { hasText: "live" }).waitFor();
    await page.getByLabel("Message").focus();
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Approve" }).waitFor({ timeout: 60_000 });
    await screenshot(page, "console-375-approval.png");
    await tabTo("Approve");
    await page.keyboard.press("Enter");
    await page.locator(".transcript .turn[data-reason=completed]").waitFor({ timeout: 60_000 });

    // The views: arrow keys move between tabs.
    await tabTo("Transcript");
    // Each key is pressed once the previous one has moved the selection and the focus: a view
    // renders after its key, and a key sent in between would reach the page, not the tab list.
    const selectedAndFocused = (name: string) =>
      expect
        .poll(
          async () =>
            (await page.getByRole("tab", { name }).getAttribute("aria-selected")) === "true" &&
            (await page.evaluate("document.activeElement?.textContent?.trim()")) === name,
          { timeout: 30_000 },
        )
        .toBe(true);
    await page.keyboard.press("ArrowRight");
    await selectedAndFocused("Context");
    await page.keyboard.press("End");
    await selectedAndFocused("Timeline");
    await page.locator(".timeline svg").waitFor();
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await screenshot(page, "console-375-timeline.png");
    await page.keyboard.press("Home");
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await screenshot(page, "console-375.png");
    expect(pageErrors).toEqual([]);
    await page.close();
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
