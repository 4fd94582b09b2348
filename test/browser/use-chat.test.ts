/**
 * `examples/use-chat/` (the AI SDK's `useChat`, bundled by esbuild) in Debian's Chromium against a
 * real `wrangler dev` and a scripted model: send a message, approve a write, reload mid-answer
 * and see the answer resume (docs/API.md#chat-ai-sdk-ui-message-stream).
 */
import { readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../e2e/harness/api";
import { type FakeOpenAI, scriptedAgent, startFakeOpenAI } from "../e2e/harness/fake-openai";
import { makePersistDir, REPO_ROOT, startWrangler, type Wrangler } from "../e2e/harness/wrangler";

const TOKEN = "use-chat-token";
const SLOW = "Resumable chat without Redis: this answer is replayed from the log after a reload.";
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"];
const EXAMPLE = join(REPO_ROOT, "examples/use-chat");

/** Serves the example page from its own origin (which the Worker allows through ALLOWED_ORIGINS). */
async function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] === "/dist/app.js" ? "dist/app.js" : "index.html";
    res.writeHead(200, { "content-type": path.endsWith(".js") ? "text/javascript" : "text/html" });
    res.end(readFileSync(join(EXAMPLE, path)));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("examples/use-chat in Chromium", () => {
  let fake: FakeOpenAI;
  let worker: Wrangler;
  let browser: Browser;
  let page: { server: Server; origin: string };
  let persistTo: string;

  beforeAll(async () => {
    const build = (await import(join(EXAMPLE, "build.mjs"))) as { buildUseChatExample: () => Promise<string> };
    await build.buildUseChatExample();
    page = await servePage();
    fake = await startFakeOpenAI(
      scriptedAgent((step, ctx) => {
        if (ctx.lastUserText === "write hello.txt")
          return step === 0
            ? { toolCalls: [{ name: "write_file", args: { path: "hello.txt", content: "hello" } }] }
            : { text: "Wrote hello.txt." };
        return { text: SLOW, chunkDelayMs: 1500 };
      }),
    );
    persistTo = makePersistDir("hw-use-chat-");
    worker = await startWrangler({
      persistTo,
      vars: {
        API_TOKENS: TOKEN,
        ALLOWED_ORIGINS: page.origin,
        MODEL_PROVIDER: "openai",
        MODEL_BASE_URL: fake.url,
        MODEL_API_KEY: "x",
        MODEL_NAME: "fake-model",
      },
    });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await fake?.close();
    await new Promise((r) => page?.server.close(r));
    if (persistTo) rmSync(persistTo, { recursive: true, force: true });
  });

  it("sends, approves a write, and resumes an answer after a reload", async () => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    await tab.goto(`${page.origin}/?api=${encodeURIComponent(worker.url)}#token=${TOKEN}`);
    await tab.waitForSelector("#input");
    const sessionId = new URL(tab.url()).searchParams.get("session")!;
    expect(sessionId).toMatch(/^[0-9a-f]{64}$/);

    await tab.fill("#input", "write hello.txt");
    await tab.click("#send");
    await tab.click(".tool[data-state='approval-requested'] .approve");
    await tab.waitForSelector(".tool[data-state='output-available']");
    await tab.waitForSelector("text=Wrote hello.txt.");
    const api = createApi(worker.url, TOKEN);
    expect(await api.file(sessionId, "hello.txt")).toBe("hello");

    await tab.fill("#input", "tell me slowly");
    await tab.click("#send");
    // Some of the answer is on screen, not all of it: reload in the middle.
    // Page scripts are strings: this file is type-checked without the DOM library.
    const shown = `[...document.querySelectorAll("li[data-role='assistant'] .text")].map((p) => p.textContent)`;
    const full = JSON.stringify(SLOW);
    await tab.waitForFunction(`${shown}.some((t) => t && ${full}.startsWith(t) && t !== ${full})`, undefined, {
      timeout: 30_000,
    });
    expect((await api.getSession(sessionId)).status).toBe("running");
    await tab.reload();
    await tab.waitForFunction(`${shown}.includes(${full})`, undefined, { timeout: 30_000 });
    const answers = (await tab.evaluate(shown)) as string[];
    expect(answers.filter((t) => t === SLOW)).toHaveLength(1);
    expect(await tab.$$eval("li[data-role='user']", (lis) => lis.map((li) => li.textContent))).toEqual([
      "write hello.txt",
      "tell me slowly",
    ]);
    expect(errors).toEqual([]);
  });
});
