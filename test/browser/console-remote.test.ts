/**
 * A remote agent's call in the console (docs/API.md#a2a-agents): two deployments, A (the demo
 * model, `A2A_AGENTS` → B) and B (a model that answers when the test says), and A's console page
 * open while A's session calls B. The call's tool card names the tool's source (`a2a:b`) and shows
 * the remote task's state as a badge, live: `working` while B's task runs, then `completed`, and
 * the same after a reload.
 */
import { rmSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi } from "../e2e/harness/api";
import { type FakeOpenAI, startFakeOpenAI } from "../e2e/harness/fake-openai";
import { freePort, makePersistDir, startWrangler, type Wrangler } from "../e2e/harness/wrangler";
import { CHROMIUM_ARGS, TOKEN } from "./console-harness";

const B_TOKEN = "browser-remote-b-token";

describe("browser console: a remote agent's call", () => {
  let model: FakeOpenAI;
  let a: Wrangler;
  let b: Wrangler;
  let browser: Browser;
  const dirs: string[] = [];
  let answer!: () => void;
  const answered = new Promise<void>((r) => {
    answer = r;
  });
  let bCalls = 0;

  beforeAll(async () => {
    // B's turn answers once the test lets it: its task stays `working` until then.
    model = await startFakeOpenAI(async () => {
      bCalls++;
      await answered;
      return { text: "B looked into it: all green" };
    });
    const portA = await freePort();
    dirs.push(makePersistDir("hw-browser-remote-b-"), makePersistDir("hw-browser-remote-a-"));
    b = await startWrangler({
      persistTo: dirs[0]!,
      vars: {
        API_TOKENS: B_TOKEN,
        MODEL_PROVIDER: "openai",
        MODEL_BASE_URL: model.url,
        MODEL_API_KEY: "x",
        MODEL_NAME: "fake",
        A2A_PUSH_ALLOWED_HOSTS: "127.0.0.1:*",
      },
    });
    a = await startWrangler({
      persistTo: dirs[1]!,
      port: portA,
      vars: {
        API_TOKENS: TOKEN,
        B_TOKEN,
        PUBLIC_URL: `http://127.0.0.1:${portA}`,
        A2A_AGENTS: JSON.stringify([
          {
            name: "b",
            url: `${b.url}/.well-known/agent-card.json`,
            headers: { authorization: "Bearer {{secret:B_TOKEN}}" },
          },
        ]),
      },
    });
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    answer();
    await browser?.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await model?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("the tool card shows the remote task working, then completed", async () => {
    const api = createApi(a.url, TOKEN);
    const session = await api.createSession({ title: "Ask B" });
    const pageErrors: string[] = [];
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on("pageerror", (err) => pageErrors.push(String(err)));
    page.on("console", (msg) => {
      if (msg.type() === "error") pageErrors.push(msg.text());
    });
    await page.addInitScript(`sessionStorage.setItem("highwater.token", ${JSON.stringify(TOKEN)})`);
    await page.goto(`${a.url}/s/${session.id}`);
    await page.locator(".conn", { hasText: "live" }).waitFor();
    // Every state the badge shows, in order, as the page hears it.
    await page.evaluate(`
      window.remoteStates = [];
      new MutationObserver(() => {
        const s = document.querySelector(".badge.remote")?.dataset.remoteState;
        if (s && window.remoteStates.at(-1) !== s) window.remoteStates.push(s);
      }).observe(document.querySelector("#app"), { subtree: true, attributes: true, childList: true });
    `);

    // The demo model calls the tool the message names.
    await api.sendMessage(session.id, "use b__send");
    const card = page.locator(".transcript li.tool", { hasText: "b__send" });
    await card.locator('.badge.remote[data-remote-state="working"]').waitFor({ timeout: 90_000 });
    // B's task is under way: its model call waits for the test.
    await expect.poll(() => bCalls, { timeout: 60_000 }).toBeGreaterThan(0);
    await expect.poll(async () => (await api.getSession(session.id)).status).toBe("waiting");
    expect((await card.locator(".badge.source").textContent())?.trim()).toBe("a2a:b");
    expect((await card.locator(".badge.remote").textContent())?.trim()).toBe("remote task working");
    const taskId = (await api.allEvents(session.id))
      .map((e) => e.actions?.stateDelta?.remoteTask as { taskId?: string } | undefined)
      .find((r) => r?.taskId)?.taskId;
    expect(taskId).toBeTruthy();
    expect(await card.locator(".badge.remote").getAttribute("title")).toContain(`remote task ${taskId} (agent b)`);

    answer();
    await card.locator('.badge.remote[data-remote-state="completed"]').waitFor({ timeout: 90_000 });
    expect((await card.locator(".badge.remote").textContent())?.trim()).toBe("remote task completed");
    await page.locator(".transcript .turn[data-reason=completed]").waitFor({ timeout: 60_000 });
    expect(await page.evaluate("window.remoteStates")).toEqual(["working", "completed"]);

    // What a page opened afterwards shows: the same card, completed, with B's answer in the response.
    await page.reload();
    const again = page.locator(".transcript li.tool", { hasText: "b__send" });
    await again.locator('.badge.remote[data-remote-state="completed"]').waitFor();
    await again.locator("summary").click();
    await expect.poll(async () => (await again.textContent()) ?? "").toContain("B looked into it: all green");
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
