/**
 * The README walkthrough "MCP servers behind OAuth" in a browser: the tracker of
 * scripts/fake-oauth-mcp.mjs (its authorization server shows a consent page) is configured,
 * the console lists it with "Connect tracker"; a click goes to the consent page, "Allow" lands on
 * `/v1/oauth/callback`, whose link leads back to the console, where the server's tools are
 * listed and the button is gone; a turn of the demo model (`use tracker__list_issues`) calls the
 * tool with the connected user's token.
 *
 *   npx vitest run --project e2e test/browser/console-oauth.test.ts
 */
import { rmSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makePersistDir, startWrangler, type Wrangler } from "../e2e/harness/wrangler";
import { CHROMIUM_ARGS, TOKEN } from "./console-harness";

type Tracker = {
  mcpUrl: string;
  as: { origin: string; issued: string[]; counts: { authorize: number; token: number } };
  close(): Promise<void>;
};
const { startTracker } = (await import(new URL("../../scripts/fake-oauth-mcp.mjs", import.meta.url).href)) as {
  startTracker(o: { port?: number; consent?: "auto" | "page" }): Promise<Tracker>;
};

let tracker: Tracker;
let worker: Wrangler;
let browser: Browser;
let persistTo: string;

beforeAll(async () => {
  tracker = await startTracker({ port: 0, consent: "page" });
  persistTo = makePersistDir("hw-browser-oauth-");
  worker = await startWrangler({
    persistTo,
    vars: {
      API_TOKENS: TOKEN,
      TOKEN_ENCRYPTION_KEY: "b".repeat(40),
      MCP_SERVERS: JSON.stringify([
        { name: "tracker", url: tracker.mcpUrl, trust: "annotations", auth: { type: "oauth", scopes: ["issues"] } },
      ]),
    },
  });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await tracker?.close();
  if (persistTo) rmSync(persistTo, { recursive: true, force: true });
});

describe("browser console: MCP servers behind OAuth", () => {
  it("Connect → consent → back in the console; the server's tools are listed and a turn calls one", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (err) => pageErrors.push(String(err)));
    await page.goto(`${worker.url}/`);
    await page.getByLabel("Token").fill(TOKEN);
    await page.getByRole("button", { name: "Connect", exact: true }).click();

    const connect = page.getByRole("button", { name: "Connect tracker" });
    await connect.waitFor({ timeout: 30_000 });
    expect(await page.locator(".mcp-servers li[data-server=tracker]").getAttribute("data-reason")).toBe(
      "needs_authorization",
    );
    expect(await page.locator("label.check[data-tool^=tracker__]").count()).toBe(0);
    await connect.click();

    // The authorization server's consent page, in this tab.
    await page.waitForURL((u) => u.origin === tracker.as.origin, { timeout: 30_000 });
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((u) => u.origin === worker.url && u.pathname === "/v1/oauth/callback", { timeout: 30_000 });
    await page.getByText("Connected tracker.").waitFor();
    await page.getByRole("link", { name: "Return to the console" }).click();

    // Back in the console (the token was kept in this tab): listed, and no button any more.
    await page.locator("label.check[data-tool=tracker__list_issues]").waitFor({ timeout: 30_000 });
    expect(await page.locator("label.check[data-tool=tracker__create_issue]").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Connect tracker" }).count()).toBe(0);
    expect(await page.locator(".mcp-servers li").count()).toBe(0);

    await page.getByRole("button", { name: "New session" }).click();
    await page.waitForURL(/\/s\/[0-9a-f]{64}$/);
    await page.getByLabel("Message").fill("use tracker__list_issues");
    await page.getByRole("button", { name: "Send" }).click();
    await page
      .locator(".transcript", { hasText: "Issues seen by user-1: #1 Write the release notes" })
      .waitFor({ timeout: 60_000 });
    await page.locator(".meta .pill[data-status=idle]").waitFor({ timeout: 60_000 });

    // No token in the page, nor in what wrangler printed.
    const shown = (await page.textContent("body")) ?? "";
    for (const t of tracker.as.issued) {
      expect(shown.includes(t)).toBe(false);
      expect(worker.logs().includes(t)).toBe(false);
    }
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 180_000);
});
