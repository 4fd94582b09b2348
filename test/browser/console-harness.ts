/** What the console files share: one `wrangler dev` with the demo model and one Chromium per file. */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import WebSocket from "ws";
import { HighwaterClient } from "../../src/client";
import { makePersistDir, REPO_ROOT, startWrangler, type Wrangler } from "../e2e/harness/wrangler";

export const TOKEN = "browser-token";
// Not a word like "summary": the demo model answers a summary request with a checkpoint instead.
export const TASK = "Draft the release notes for version two";
export const DEMO_TOOLS = ["write_file", "list_files", "read_file", "search_files"];
export const FINAL = "[demo model] This answer comes from";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

export type Shown = { seq: number; kind: string; text: string };

/** What the transcript shows, item by item (committed items only, not the streaming area). */
export function shownItems(page: Page): Promise<Shown[]> {
  return page.$$eval(".transcript > li", (lis) =>
    lis.map((li) => ({
      seq: Number(li.getAttribute("data-seq")),
      kind: li.className,
      text: (li.textContent ?? "").replace(/\s+/g, " ").trim(),
    })),
  );
}

export function expectOrderedOnce(items: Shown[]) {
  const keys = items.map((i) => `${i.kind.split(" ")[1]}:${i.seq}`);
  expect(new Set(keys).size).toBe(keys.length);
  const seqs = items.map((i) => i.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}

/**
 * Starts the worker and the browser for the calling file (in its `beforeAll`) and stops them
 * after; `worker`, `browser` and `api` are read once the hooks have run.
 */
export function useConsole() {
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

  return {
    get worker() {
      return worker;
    },
    get browser() {
      return browser;
    },
    get api() {
      return api;
    },
    newPage,
    screenshot,
    demoSession,
  };
}
