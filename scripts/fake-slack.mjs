#!/usr/bin/env node
/**
 * A fake Slack beside `npm start`, offline (docs/API.md#channels): it serves the two Web API
 * methods highwater posts with (`chat.postMessage`, `chat.update`), prints every post, and lets
 * you talk to the Worker as Slack would, each request signed with the signing secret.
 *
 *   node scripts/fake-slack.mjs            # then type a line: it is sent as a mention
 *
 * Lines you type:
 *   <text>               a mention of the bot starting a new thread (a new session)
 *   > <text>             a reply in the last thread
 *   approve | reject     a click on the last card's button
 *   /as <user> <text>    a mention from another user (not allowed: refused)
 *
 * Environment: WORKER (default http://127.0.0.1:8787), CHANNEL (default team), PORT (default
 * 8790), SLACK_SIGNING_SECRET (default local-signing-secret), USER_ID (default U_LOCAL).
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import { createInterface } from "node:readline";

const WORKER = process.env.WORKER ?? "http://127.0.0.1:8787";
const CHANNEL = process.env.CHANNEL ?? "team";
const PORT = Number(process.env.PORT ?? 8790);
const SECRET = process.env.SLACK_SIGNING_SECRET ?? "local-signing-secret";
const USER = process.env.USER_ID ?? "U_LOCAL";
const webhook = `${WORKER}/v1/channels/${CHANNEL}/events`;

let seq = 0;
let lastThread = null;
let lastCard = null;

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const method = (req.url ?? "").split("/").at(-1);
    const body = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
    const ts =
      method === "chat.update" ? body.ts : `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, "0")}`;
    const blocks = body.blocks ? JSON.parse(body.blocks) : [];
    const card = JSON.stringify(blocks).match(/"value":"([0-9a-f]{16})"/);
    if (card) lastCard = card[1];
    const verb = method === "chat.update" ? "edited " : "";
    console.log(
      `\n[slack ${body.channel} thread ${body.thread_ts ?? body.ts}] ${verb}${body.text}${card ? "\n  [Approve] [Reject]  (type approve or reject)" : ""}`,
    );
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: true, channel: body.channel, ts }));
  });
});

function sign(body) {
  const ts = Math.floor(Date.now() / 1000);
  const sig = `v0=${createHmac("sha256", SECRET).update(`v0:${ts}:${body}`).digest("hex")}`;
  return { "x-slack-request-timestamp": String(ts), "x-slack-signature": sig };
}

async function send(body, form = false) {
  const res = await fetch(webhook, {
    method: "POST",
    headers: { "content-type": form ? "application/x-www-form-urlencoded" : "application/json", ...sign(body) },
    body,
  });
  if (res.status !== 200) console.log(`webhook answered ${res.status}: ${await res.text()}`);
}

function mention(user, text, threadTs) {
  const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, "0")}`;
  if (!threadTs) lastThread = ts;
  const event = {
    type: "app_mention",
    user,
    text: `<@UBOT> ${text}`,
    ts,
    channel: "C_LOCAL",
    ...(threadTs ? { thread_ts: threadTs } : {}),
  };
  return send(JSON.stringify({ type: "event_callback", event_id: `Ev${Date.now()}${seq}`, team_id: "T_LOCAL", event }));
}

function click(action) {
  if (!lastCard || !lastThread) return console.log("no card yet");
  const payload = {
    type: "block_actions",
    user: { id: USER },
    channel: { id: "C_LOCAL" },
    container: { type: "message", channel_id: "C_LOCAL", thread_ts: lastThread },
    message: { ts: lastThread, thread_ts: lastThread },
    actions: [{ type: "button", action_id: action, value: lastCard, action_ts: `${Date.now() / 1000}` }],
  };
  return send(new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), true);
}

server.listen(PORT, "127.0.0.1", () => {
  console.log(`fake Slack Web API at http://127.0.0.1:${PORT}/api/ — webhook ${webhook}`);
  console.log("type a message (a new thread), '> text' (a reply), 'approve' / 'reject', '/as U_OTHER text'");
  const rl = createInterface({ input: process.stdin });
  rl.on("line", async (line) => {
    const text = line.trim();
    if (!text) return;
    if (text === "approve" || text === "reject") return click(text);
    if (text.startsWith("> "))
      return lastThread ? mention(USER, text.slice(2), lastThread) : console.log("no thread yet");
    const as = /^\/as (\S+) (.+)$/.exec(text);
    if (as) return mention(as[1], as[2]);
    return mention(USER, text);
  });
});
