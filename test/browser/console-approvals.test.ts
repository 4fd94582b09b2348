/** The console's create form with an approval rule, and the approval card (bound to its `argsDigest`): approve, reject, a stale card. */
import { beforeAll, describe, expect, it } from "vitest";
import type { HighwaterClient } from "../../src/client";
import type { Wrangler } from "../e2e/harness/wrangler";
import { DEMO_TOOLS, expectOrderedOnce, FINAL, shownItems, TASK, TOKEN, useConsole } from "./console-harness";

describe("browser console: approvals", () => {
  let worker: Wrangler;
  let api: HighwaterClient;
  const harness = useConsole();
  const { newPage, screenshot } = harness;
  beforeAll(() => {
    ({ worker, api } = harness);
  });

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
});
