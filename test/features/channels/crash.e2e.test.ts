/**
 * A turn's answer survives a crash between the turn's close and its post (docs/API.md#channels):
 * `wrangler dev` is killed with SIGKILL (the whole process group) at F19 (the answer's report is
 * stored in the session, not yet handed to the channel's object) or at F18 (the post is stored in
 * the channel's outbox, not yet sent to Slack), restarted on the same persist dir with no
 * request, and the fake Slack sees the answer posted exactly once.
 *
 *   npx vitest run --project e2e test/features/channels/crash.e2e.test.ts
 */
import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { limiter } from "../../e2e/crash/run-case";
import { createApi } from "../../e2e/harness/api";
import { makePersistDir, startFailpointSink, startWrangler, type Wrangler } from "../../e2e/harness/wrangler";
import { type PlatformCall, sendSlack, slackMention, startFakeSlack } from "../../fakes/chat-platforms";

const TOKEN = "channels-crash-token";
const SECRET = "slack-signing-secret-crash";
const run = limiter(2);
const table: string[] = [];

const isAnswer = (c: PlatformCall) =>
  c.method === "chat.postMessage" && c.status === 200 && String(c.body.text).startsWith("[demo model]");

async function crashCase(point: "F18" | "F19") {
  const cleanups: (() => unknown)[] = [];
  let worker: Wrangler | undefined;
  try {
    const slack = await startFakeSlack();
    cleanups.push(() => slack.close());
    const sink = await startFailpointSink();
    cleanups.push(() => sink.close());
    const persistTo = makePersistDir("hw-channels-crash-");
    cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
    const vars = {
      API_TOKENS: TOKEN,
      SLACK_BOT_TOKEN: "xoxb-crash",
      SLACK_SIGNING_SECRET: SECRET,
      CHANNEL_TOKEN: TOKEN,
      HW_DEMO_CHUNK_DELAY_MS: "0",
      CHANNELS: JSON.stringify([
        {
          name: "team",
          kind: "slack",
          botToken: "{{secret:SLACK_BOT_TOKEN}}",
          signingSecret: "{{secret:SLACK_SIGNING_SECRET}}",
          actAs: "{{secret:CHANNEL_TOKEN}}",
          allowUsers: ["U_ALICE"],
          apiUrl: slack.url,
        },
      ]),
    };
    worker = await startWrangler({ persistTo, vars: { ...vars, HW_FAILPOINT: point, HW_FAILPOINT_URL: sink.url } });
    const ts = "1700000100.000100";
    const res = await sendSlack(
      `${worker.url}/v1/channels/team/events`,
      SECRET,
      slackMention({ eventId: `EvCrash${point}`, user: "U_ALICE", text: "use list_files", ts }),
    );
    expect(res.status).toBe(200);
    await sink.waitFor(point, 60_000);
    await worker.kill9();
    const before = slack.calls.filter(isAnswer).length;
    expect(before).toBe(0);
    worker = await startWrangler({ ...worker.options, vars, port: undefined, inspectorPort: undefined });
    await slack.waitFor((calls) => calls.some(isAnswer), 90_000);
    // The session is closed and whole; a while later there is still exactly one answer.
    const api = createApi(worker.url, TOKEN);
    const { sessions } = await api.listSessions();
    const id = (sessions as { id: string }[])[0]!.id;
    await api.waitForIdle(id);
    expect((await api.verify(id)).ok).toBe(true);
    // Both outboxes are empty by now: one more alarm round would have posted a duplicate.
    await api.sendMessage(id, "use read_file");
    await slack.waitFor((calls) => calls.filter(isAnswer).length === 2, 60_000);
    const answers = slack.calls.filter(isAnswer);
    expect(answers[0]!.body.thread_ts).toBe(ts);
    expect(answers).toHaveLength(2);
    table.push(`| kill -9 at ${point} | ${before} | ${answers.length - 1} |`);
  } finally {
    await worker?.stop().catch(() => undefined);
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  }
}

describe.concurrent("a channel's answer after a crash between the turn's close and its post", () => {
  it.each(["F19", "F18"] as const)(
    "killed at %s: posted once after the restart",
    (point) => run(() => crashCase(point)),
    240_000,
  );
});

afterAll(() => {
  console.log(
    ["| crash | the answer posted before the kill | posted after the restart |", "| --- | --- | --- |", ...table].join(
      "\n",
    ),
  );
});
