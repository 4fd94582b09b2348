/**
 * The browser console in Debian's Chromium against a real `wrangler dev` with the demo model:
 * the views over real data (approvals: console-approvals.test.ts; live
 * updates: console-live.test.ts; 5,000 events: console-scale.test.ts), the recovery banner dismissed for every page, keyboard only at
 * 375 px. Screenshots go to test-results/.
 */
import { readFileSync, rmSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { HighwaterClient } from "../../src/client";
import { eventKind } from "../../src/contract/event";
import {
  makePersistDir,
  restartWrangler,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../e2e/harness/wrangler";
import { DEMO_TOOLS, TASK, TOKEN, useConsole } from "./console-harness";

describe("browser console: views", () => {
  let worker: Wrangler;
  let api: HighwaterClient;
  const harness = useConsole();
  const { newPage, screenshot, demoSession } = harness;
  beforeAll(() => {
    ({ worker, api } = harness);
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

  it("the Runs view reads past the first page of triggers when asked", async () => {
    const s = await api.createSession({ title: "Many triggers" });
    const names = Array.from({ length: 103 }, (_, i) => `t${String(i).padStart(3, "0")}`);
    for (const name of names) await api.createTrigger(s.id, { name, text: "report", schedule: { cron: "0 6 * * *" } });
    const { page, pageErrors } = await newPage(TOKEN);
    await page.goto(`${worker.url}/s/${s.id}`);
    await page.getByRole("tab", { name: "Runs" }).click();
    const items = page.locator("ul.triggers li");
    // The server's first page is 100, by name; the rest come with the button, which then goes away.
    await expect.poll(() => items.count()).toBe(100);
    await page.getByRole("button", { name: "More triggers" }).click();
    await expect.poll(() => items.count()).toBe(103);
    expect((await items.locator("code").allTextContents()).map((t) => t.trim())).toEqual(names);
    expect(await page.getByRole("button", { name: "More triggers" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Older runs" }).count()).toBe(0);
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
      // Under load the page may render the banner before its list (the default 5 s was once short).
      await expect.poll(() => bannerA.locator("code").allTextContents(), { timeout: 30_000 }).toEqual(["write_file"]);
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
});
