/**
 * The browser console in Debian's Chromium against a real `wrangler dev` with the demo model:
 * token, session list, a live turn (streamed text, tool calls, the final answer), approvals,
 * verify and export, and a reload that shows the same transcript with nothing twice. Also the
 * typed client's reconnect from Node, with sockets dropped mid-turn.
 */
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type Event, HighwaterClient, type ServerFrame, type WebSocketLike } from "../../src/client";
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

  /** A page in a fresh browser profile; with `token`, as if it had been pasted before. */
  async function newPage(token?: string): Promise<{ page: Page; pageErrors: string[] }> {
    const pageErrors: string[] = [];
    const page = await browser.newPage({ viewport: { width: 1000, height: 1200 } });
    // Page scripts are strings: this file is type-checked without the DOM library.
    if (token) await page.addInitScript(`localStorage.setItem("highwater.token", ${JSON.stringify(token)})`);
    page.on("pageerror", (err) => pageErrors.push(String(err)));
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

  it("runs a demo turn live, and a reload shows the same transcript once", async () => {
    const { page, pageErrors } = await newPage();
    await page.goto(`${worker.url}/`);

    // The token is asked for once and kept.
    await page.getByLabel("API token").fill("wrong-token");
    await page.getByRole("button", { name: "Save token" }).click();
    await page.getByText("That token was not accepted.").waitFor();
    expect(pageErrors).toEqual([expect.stringContaining("401")]);
    pageErrors.length = 0;
    await page.getByLabel("API token").fill(TOKEN);
    await page.getByRole("button", { name: "Save token" }).click();
    await page.getByText("No sessions yet.").waitFor();

    await page.getByLabel("Title").fill("Board report");
    await page.getByText("System prompt (optional)").click();
    await page.getByLabel("Extra system instructions").fill("Be brief.");
    await page.getByRole("button", { name: "Create session" }).click();
    await page.waitForURL(/\/s\/[0-9a-f]{64}$/);
    const id = new URL(page.url()).pathname.split("/")[2]!;

    await expect.poll(() => page.textContent("h1")).toBe("Board report");
    await page.locator(".meta .pill[data-status=idle]").waitFor();
    expect(await page.textContent(".meta .model")).toContain("demo model");
    await page.locator(".conn", { hasText: "live" }).waitFor();

    // Record whether streamed (uncommitted) text was ever on screen.
    await page.evaluate(`
      window.sawStreaming = false;
      new MutationObserver(() => {
        if (document.querySelector(".streaming .msg .text")?.textContent) window.sawStreaming = true;
      }).observe(document.querySelector(".streaming"), { childList: true, subtree: true, characterData: true });
    `);

    await page.getByLabel("Message").fill(TASK);
    await page.getByLabel("Message").press("Enter");
    await page.locator(".transcript .msg.user", { hasText: TASK }).waitFor();

    const final = page.locator(".transcript .msg.assistant", { hasText: "[demo model] This answer comes from" });
    await final.waitFor({ timeout: 60_000 });
    await page.locator(".transcript .turn[data-reason=completed]").waitFor();
    await page.locator(".meta .pill[data-status=idle]").waitFor();
    expect(await page.locator(".meta .pill").textContent()).toBe("idle");
    expect(await page.getByRole("button", { name: "Stop" }).isDisabled()).toBe(true);

    const tools = page.locator(".transcript .item.tool");
    expect(await tools.locator(".tool-name").allTextContents()).toEqual(DEMO_TOOLS);
    expect(await tools.locator(".badge[data-state]").allTextContents()).toEqual(DEMO_TOOLS.map(() => "ok"));
    expect(await tools.first().textContent()).toContain("notes/task.md");
    expect(await page.evaluate("window.sawStreaming")).toBe(true);
    expect(await page.locator(".streaming > *").count()).toBe(0);

    // The page shows exactly the server's projection, each item once, in log order.
    const before = await shownItems(page);
    expectOrderedOnce(before);
    const server = await api.transcript(id);
    expect(before.map((i) => i.seq)).toEqual(server.items.map((i) => i.seq));

    await page.getByRole("button", { name: "Verify log" }).click();
    await page.locator(".verify.ok", { hasText: "✓ verified" }).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Export NDJSON" }).click(),
    ]);
    const exported = readFileSync(await download.path(), "utf8");
    const session = await api.getSession(id);
    expect(exported.trim().split("\n")).toHaveLength(session.highWater);

    await screenshot(page, "console.png");

    // A reload replays the log from the start: the same items, nothing twice.
    await page.reload();
    await final.waitFor();
    await page.locator(".meta .pill[data-status=idle]").waitFor();
    await page.locator(".conn", { hasText: "live" }).waitFor();
    expect(await shownItems(page)).toEqual(before);

    // The reloaded page is live: a second turn appends after the first, still once each.
    await page.getByLabel("Message").fill("Now list the notes folder");
    await page.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.locator(".transcript .turn[data-reason=completed]").count(), { timeout: 60_000 })
      .toBe(2);
    const after = await shownItems(page);
    expectOrderedOnce(after);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.map((i) => i.seq)).toEqual((await api.transcript(id)).items.map((i) => i.seq));

    // The session list shows it.
    await page.getByRole("link", { name: "← Sessions" }).click();
    await page.getByRole("link", { name: "Board report" }).waitFor();
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("asks for approval and continues when approved", async () => {
    const s = await api.createSession({ title: "Needs approval", approvals: [{ tool: "write_file" }] });
    const { page, pageErrors } = await newPage(TOKEN);
    await page.goto(`${worker.url}/s/${s.id}`);
    await page.locator(".conn", { hasText: "live" }).waitFor();
    await page.getByLabel("Message").fill("Write the plan down");
    await page.getByLabel("Message").press("Enter");

    const approve = page.getByRole("button", { name: "Approve" });
    await approve.waitFor({ timeout: 60_000 });
    await page.locator(".meta .pill[data-status=waiting_approval]").waitFor();
    expect(await page.locator(".item.tool[data-state=waiting_approval] .tool-name").textContent()).toBe("write_file");
    await approve.click();

    await page.locator(".transcript .turn[data-reason=completed]").waitFor({ timeout: 60_000 });
    await page.locator(".meta .pill[data-status=idle]").waitFor();
    expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0);
    expect(await page.locator(".item.tool .tool-name").allTextContents()).toEqual(DEMO_TOOLS);
    expectOrderedOnce(await shownItems(page));
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it("shows a dismissible recovery notice after a crash", async () => {
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

      const { page, pageErrors } = await newPage(TOKEN);
      await page.goto(`${crashed.url}/s/${s.id}`);
      const banner = page.getByRole("region", { name: "Recovery notice" });
      await banner.waitFor();
      expect(await banner.textContent()).toContain("Needs review");
      expect(await banner.locator("code").allTextContents()).toEqual(["write_file"]);
      expect(await page.locator(".item.tool .badge.recovery").allTextContents()).toEqual(["needs review"]);
      await page.locator(".meta .pill[data-status=idle]").waitFor();
      await screenshot(page, "console-recovery.png");

      await page.getByRole("button", { name: "Dismiss recovery notice" }).click();
      expect(await banner.count()).toBe(0);
      await page.reload();
      await page.locator(".conn", { hasText: "live" }).waitFor();
      // "live" means the socket is open; the replayed events render after it.
      await expect.poll(() => page.locator(".item.recovery").count(), { timeout: 30_000 }).toBe(1);
      expect(await banner.count()).toBe(0);
      expect(pageErrors).toEqual([]);
      await page.close();
    } finally {
      await crashed.stop();
      await sink.close();
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
