/**
 * A Slack channel against a fake Slack on 127.0.0.1 (docs/API.md#channels), on a real
 * `wrangler dev` with the offline demo model: the URL check, forged and stale signatures refused
 * with nothing appended, a mention starting a session whose answer is posted in its thread, a
 * platform retry appending nothing, a user not allowed refused, an approval card clicked twice
 * deciding once, a 429 with `Retry-After` then 200 posting once, and the thread's commands.
 *
 *   npx vitest run --project e2e test/features/channels/slack.e2e.test.ts
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApi, type Event } from "../../e2e/harness/api";
import { makePersistDir, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";
import {
  type FakePlatform,
  type PlatformCall,
  sendSlack,
  slackClick,
  slackMention,
  slackThreadReply,
  startFakeSlack,
} from "../../fakes/chat-platforms";

const TOKEN = "channels-owner-token";
const OTHER = "someone-else-token";
const SECRET = "slack-signing-secret-1234";
const ALLOWED = "U_ALICE";

let slack: FakePlatform;
let worker: Wrangler;
let persistTo: string;
let webhook: string;
let approvalsHook: string;
const api = () => createApi(worker.url, TOKEN);

beforeAll(async () => {
  slack = await startFakeSlack();
  persistTo = makePersistDir("hw-channels-");
  const channel = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    kind: "slack",
    botToken: "{{secret:SLACK_BOT_TOKEN}}",
    signingSecret: "{{secret:SLACK_SIGNING_SECRET}}",
    actAs: "{{secret:CHANNEL_TOKEN}}",
    allowUsers: [ALLOWED],
    apiUrl: slack.url,
    ...extra,
  });
  worker = await startWrangler({
    persistTo,
    vars: {
      API_TOKENS: `${TOKEN},${OTHER}`,
      SLACK_BOT_TOKEN: "xoxb-fake-bot-token",
      SLACK_SIGNING_SECRET: SECRET,
      CHANNEL_TOKEN: TOKEN,
      HW_DEMO_CHUNK_DELAY_MS: "0",
      CHANNELS: JSON.stringify([channel("team"), channel("ops", { approvals: [{ tool: "write_file" }] })]),
    },
  });
  webhook = `${worker.url}/v1/channels/team/events`;
  approvalsHook = `${worker.url}/v1/channels/ops/events`;
}, 120_000);

afterAll(async () => {
  if (process.env.HW_CHANNELS_DUMP)
    console.log(
      slack.calls
        .map((c) => `${c.status} ${c.method} ${c.body.thread_ts ?? c.body.ts} ${String(c.body.text).slice(0, 100)}`)
        .join("\n"),
    );
  await worker?.stop();
  await slack?.close();
  rmSync(persistTo, { recursive: true, force: true });
});

const posts = (thread: string, calls = slack.calls) =>
  calls.filter((c) => c.method === "chat.postMessage" && c.status === 200 && c.body.thread_ts === thread);
const textsOf = (calls: PlatformCall[]) => calls.map((c) => String(c.body.text));
const users = (events: Event[]) => events.filter((e) => e.author === "user" && e.content?.type === "text");

async function sessionOfThread(thread: string) {
  const { sessions } = await api().listSessions();
  const found = (sessions as { id: string; channel?: { thread: string } }[]).filter(
    (s) => s.channel?.thread === thread,
  );
  return found;
}

describe("a Slack channel", () => {
  it("answers Slack's URL check", async () => {
    const res = await sendSlack(webhook, SECRET, JSON.stringify({ type: "url_verification", challenge: "ch-123" }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: "ch-123" });
  });

  it("refuses a forged or stale signature with 401 and appends nothing", async () => {
    const body = slackMention({ eventId: "EvForged", user: ALLOWED, text: "hello", ts: "1700000001.000100" });
    const forged = await sendSlack(webhook, "not-the-secret-at-all", body);
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const stale = await sendSlack(webhook, SECRET, body, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect(stale.status).toBe(401);
    const unsigned = await fetch(webhook, { method: "POST", body, headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(401);
    // Nothing created, nothing posted, for either.
    expect(await sessionOfThread("C1:1700000001.000100")).toEqual([]);
    expect(posts("1700000001.000100")).toEqual([]);
  });

  it("an unknown channel is 404 and a GET is 405", async () => {
    expect((await sendSlack(`${worker.url}/v1/channels/nope/events`, SECRET, "{}")).status).toBe(404);
    expect((await fetch(webhook)).status).toBe(405);
  });

  it("a mention starts a session in its thread, answered there once; Slack's retry appends nothing", async () => {
    const ts = "1700000002.000100";
    const body = slackMention({ eventId: "EvHello", user: ALLOWED, text: "use list_files", ts });
    const first = await sendSlack(webhook, SECRET, body);
    expect(first.status).toBe(200);
    // Slack retries an event it thinks was not acknowledged, with the same event id.
    expect((await sendSlack(webhook, SECRET, body, { retryNum: 1 })).status).toBe(200);
    await slack.waitFor((calls) => posts(ts, calls).some((c) => String(c.body.text).includes("list_files")));
    const [session] = await sessionOfThread(`C1:${ts}`);
    expect(session).toMatchObject({ channel: { name: "team", kind: "slack", thread: `C1:${ts}` } });
    const { events } = await api().waitForIdle(session!.id);
    const said = users(events);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ source: "channel:team", content: { type: "text", text: "use list_files" } });
    expect(said[0]!.actions?.stateDelta?.idempotencyKey).toBe("ch:team:EvHello");
    await expect(sendSlack(webhook, SECRET, body, { retryNum: 2 })).resolves.toHaveProperty("status", 200);
    // The answer is posted once, in the thread, with the bot's token; a retry after it adds nothing.
    await api().waitFor(session!.id, () => true);
    const answers = posts(ts).filter((c) => !String(c.body.text).startsWith("Working"));
    expect(answers).toHaveLength(1);
    expect(answers[0]!.auth).toBe("Bearer xoxb-fake-bot-token");
    expect(users((await api().waitForIdle(session!.id)).events)).toHaveLength(1);
    // A reply in the thread (no mention) is the same session's next message.
    await sendSlack(
      webhook,
      SECRET,
      slackThreadReply({
        eventId: "EvReply",
        user: ALLOWED,
        text: "use read_file",
        ts: "1700000002.000200",
        threadTs: ts,
      }),
    );
    const next = await api().waitFor(session!.id, (s, ev) => !s.openTurn && users(ev).length === 2);
    expect(users(next.events)[1]).toMatchObject({ source: "channel:team", content: { text: "use read_file" } });
    await slack.waitFor(
      (calls) => posts(ts, calls).filter((c) => String(c.body.text).includes("read_file")).length >= 1,
    );
    expect(await sessionOfThread(`C1:${ts}`)).toHaveLength(1);
  });

  it("a user not in allowUsers gets a refusal and appends nothing", async () => {
    const ts = "1700000003.000100";
    await sendSlack(
      webhook,
      SECRET,
      slackMention({ eventId: "EvMallory", user: "U_MALLORY", text: "delete everything", ts }),
    );
    const [refusal] = await slack.waitFor((calls) => posts(ts, calls).length > 0).then(() => posts(ts));
    expect(String(refusal!.body.text)).toMatch(/only take requests from people this channel allows/);
    expect(await sessionOfThread(`C1:${ts}`)).toEqual([]);
  });

  it("an approval is a card; a click decides it once, a second click decides nothing", async () => {
    const ts = "1700000004.000100";
    await sendSlack(
      approvalsHook,
      SECRET,
      slackMention({ eventId: "EvWrite", user: ALLOWED, text: "remember the milk", ts }),
    );
    const card = await slack
      .waitFor((calls) => posts(ts, calls).some((c) => Array.isArray(c.body.blocks)))
      .then(() => posts(ts).find((c) => Array.isArray(c.body.blocks))!);
    const buttons = JSON.stringify(card.body.blocks);
    expect(buttons).toContain('"action_id":"approve"');
    expect(buttons).toContain('"action_id":"reject"');
    const cardId = /"value":"([0-9a-f]{16})"/.exec(buttons)![1]!;
    const [session] = await sessionOfThread(`C1:${ts}`);
    const pending = (await api().getSession(session!.id)).pendingApprovals as unknown as {
      argsDigest: string;
      tool: string;
    }[];
    expect(pending).toHaveLength(1);
    expect(pending[0]!.tool).toBe("write_file");
    expect(String(card.body.text)).toContain("write_file");
    // A user not allowed clicks first: refused, nothing decided.
    await sendSlack(
      approvalsHook,
      SECRET,
      slackClick({ user: "U_MALLORY", actionId: "approve", value: cardId, threadTs: ts, actionTs: "1700000004.5" }),
      { form: true },
    );
    await slack.waitFor((calls) => textsOf(posts(ts, calls)).some((t) => t.includes("only take requests")));
    expect((await api().getSession(session!.id)).pendingApprovals).toHaveLength(1);
    const click = (actionTs: string) =>
      sendSlack(
        approvalsHook,
        SECRET,
        slackClick({ user: ALLOWED, actionId: "approve", value: cardId, threadTs: ts, actionTs }),
        { form: true },
      );
    expect((await click("1700000005.1")).status).toBe(200);
    await slack.waitFor((calls) => textsOf(posts(ts, calls)).some((t) => t.startsWith("Approved")));
    expect((await click("1700000006.1")).status).toBe(200);
    await slack.waitFor((calls) => textsOf(posts(ts, calls)).some((t) => t.startsWith("This card is stale")));
    const { events } = await api().waitForIdle(session!.id);
    const decisions = events.filter((e) => e.actions?.permissionDecision);
    expect(decisions).toHaveLength(1);
    expect(decisions[0]!.actions!.permissionDecision).toMatchObject({
      decision: "approve",
      argsDigest: pending[0]!.argsDigest,
    });
    await slack.waitFor((calls) =>
      textsOf(posts(ts, calls)).some((t) => t.includes("[demo model]") && !t.startsWith("Working")),
    );
  });

  it("approve and status by text in the thread", async () => {
    const ts = "1700000007.000100";
    await sendSlack(
      approvalsHook,
      SECRET,
      slackMention({ eventId: "EvWrite2", user: ALLOWED, text: "note the plan", ts }),
    );
    await slack.waitFor((calls) => posts(ts, calls).some((c) => Array.isArray(c.body.blocks)));
    await sendSlack(
      approvalsHook,
      SECRET,
      slackMention({ eventId: "EvStatus", user: ALLOWED, text: "status", ts: "1700000007.000300", threadTs: ts }),
    );
    await slack.waitFor((calls) =>
      textsOf(posts(ts, calls)).some((t) => t.startsWith("Status: waiting for an approval (write_file)")),
    );
    expect(textsOf(posts(ts)).find((t) => t.startsWith("Status:"))).toMatch(/context [\d,]+ of [\d,]+ tokens/);
    await sendSlack(
      approvalsHook,
      SECRET,
      slackMention({ eventId: "EvReject", user: ALLOWED, text: "reject", ts: "1700000007.000400", threadTs: ts }),
    );
    await slack.waitFor((calls) => textsOf(posts(ts, calls)).some((t) => t.startsWith("Rejected (write_file)")));
    const [session] = await sessionOfThread(`C1:${ts}`);
    const { events } = await api().waitForIdle(session!.id);
    expect(events.filter((e) => e.actions?.permissionDecision).map((e) => e.actions!.permissionDecision)).toMatchObject(
      [{ decision: "reject" }],
    );
    // The commands were no messages to the model.
    expect(users(events)).toHaveLength(1);
  });

  it("a 429 with Retry-After, then 200: the answer is posted once, after the wait", async () => {
    const ts = "1700000008.000100";
    slack.failNext("chat.postMessage", 1, 429, 1);
    await sendSlack(webhook, SECRET, slackMention({ eventId: "EvBusy", user: ALLOWED, text: "use list_files", ts }));
    await slack.waitFor((calls) =>
      posts(ts, calls).some(
        (c) => String(c.body.text).includes("list_files") && !String(c.body.text).startsWith("Working"),
      ),
    );
    const tried = slack.calls.filter((c) => c.method === "chat.postMessage" && c.body.thread_ts === ts);
    const refused = tried.filter((c) => c.status === 429);
    expect(refused).toHaveLength(1);
    const after = tried[tried.indexOf(refused[0]!) + 1]!;
    expect(after.status).toBe(200);
    // Honoured: the retry came no sooner than the second Slack asked for.
    expect(after.at - refused[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(after.body.text).toBe(refused[0]!.body.text);
    const answers = posts(ts).filter(
      (c) => String(c.body.text).includes("list_files") && !String(c.body.text).startsWith("Working"),
    );
    expect(answers).toHaveLength(1);
  });
});
