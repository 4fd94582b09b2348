/**
 * One per channel (docs/design.md#channels): the thread → session map, the inbound events seen
 * and still to handle, the approval cards, and the outbox of every post, all driven by its alarm.
 * The webhook only stores an event (`receive`) and a session only hands over a report
 * (`report`); the work happens here, after both answered, and each post goes once per key.
 * Thin: decisions are in ./handle.ts, ./outbox.ts and ./relay-posts.ts, the SQL in ./store.ts.
 */
import { DurableObject } from "cloudflare:workers";
import { failpoint } from "../../runtime/failpoints";
import { applyMigrations } from "../../storage";
import { type Channel, parseChannels } from "./config";
import { handleInbound } from "./handle";
import { dueInOrder, MAX_TRIES, nextTryAt } from "./outbox";
import type { Inbound, PlatformClient } from "./platform";
import { enqueueReport, type SessionReport } from "./relay-posts";
import { sessionsPort } from "./sessions";
import { slackClient } from "./slack";
import {
  admitInbound,
  CHANNEL_MIGRATIONS,
  dueInbound,
  inboundDone,
  inboundRetry,
  markFailed,
  markSent,
  markTrying,
  nextDue,
  pendingPosts,
  readMeta,
  readPost,
  resumeInterruptedSends,
  writeMeta,
} from "./store";
import { telegramClient } from "./telegram";

/** An outbox send that takes longer than this is retried (its retry time was stored first). */
const SEND_RETRY_MS = 30_000;

export class ChannelObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.transactionSync(() => {
      applyMigrations(ctx.storage.sql, CHANNEL_MIGRATIONS);
      resumeInterruptedSends(ctx.storage.sql, Date.now());
    });
  }

  get #sql() {
    return this.ctx.storage.sql;
  }

  #channel(): Channel | null {
    const name = readMeta(this.#sql, "name");
    const config = parseChannels(this.env as unknown as Record<string, unknown>);
    return name && config.ok ? (config.channels.get(name) ?? null) : null;
  }

  async #arm(): Promise<void> {
    const at = nextDue(this.#sql);
    if (at === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.max(at, Date.now()));
  }

  /** The webhook's event, stored once per key (`ch:<name>:<event id>`): false for a platform's retry. */
  async receive(name: string, key: string, inbound: Inbound): Promise<{ stored: boolean }> {
    const stored = this.ctx.storage.transactionSync(() => {
      writeMeta(this.#sql, "name", name);
      return admitInbound(this.#sql, key, inbound, Date.now());
    });
    if (stored) await this.#arm();
    return { stored };
  }

  /** A session's report of one of its events, queued once per (session, seq). */
  async report(name: string, input: SessionReport): Promise<{ queued: boolean }> {
    const queued = this.ctx.storage.transactionSync(() => {
      writeMeta(this.#sql, "name", name);
      return enqueueReport(this.#sql, input, Date.now());
    });
    await this.#arm();
    return { queued };
  }

  /** What the outbox holds, for tests and the operator: every row with its state. */
  outbox(): { key: string; state: string; tries: number; error: string | null }[] {
    return this.#sql
      .exec<{ key: string; state: string; tries: number; error: string | null }>(
        "SELECT key, state, tries, error FROM outbox ORDER BY n",
      )
      .toArray();
  }

  override async alarm(): Promise<void> {
    const channel = this.#channel();
    if (channel) {
      await this.#handleInbox(channel);
      await this.#sendOutbox(channel);
    }
    await this.#arm();
  }

  async #handleInbox(channel: Channel): Promise<void> {
    const sessions = sessionsPort(this.env, channel);
    for (const row of dueInbound(this.#sql, Date.now())) {
      try {
        await handleInbound({ sql: this.#sql, channel, sessions, now: Date.now() }, row.key, row.inbound);
        inboundDone(this.#sql, row.n);
      } catch (err) {
        console.error(`highwater: channel ${channel.name} could not handle ${row.key}`, err);
        if (row.tries + 1 >= MAX_TRIES) inboundDone(this.#sql, row.n);
        else inboundRetry(this.#sql, row.n, nextTryAt(row.tries + 1, null, Date.now()));
      }
    }
  }

  async #sendOutbox(channel: Channel): Promise<void> {
    const client: PlatformClient = channel.kind === "slack" ? slackClient(channel) : telegramClient(channel);
    const failedThreads = new Set<string>();
    for (const due of dueInOrder(pendingPosts(this.#sql), Date.now())) {
      if (failedThreads.has(due.thread)) continue;
      const row = readPost(this.#sql, due.key);
      if (!row) continue;
      // Stored before the send: a crash from here on comes back at this time and sends it then.
      markTrying(this.#sql, row.key, Date.now() + SEND_RETRY_MS);
      if (row.key.startsWith("s:") && !row.post.card) await failpoint(this.env, "F18");
      const edit = row.post.editOf ? readPost(this.#sql, row.post.editOf)?.messageId : row.messageId;
      const sent = await client.send({
        thread: row.thread,
        text: row.post.text,
        ...(row.post.card ? { card: row.post.card } : {}),
        ...(edit ? { edit } : {}),
      });
      if (sent.ok) {
        markSent(this.#sql, row.key, sent.messageId, Date.now());
        continue;
      }
      failedThreads.add(due.thread);
      const giveUp = sent.permanent || row.tries + 1 >= MAX_TRIES;
      console.error(`highwater: channel ${channel.name} post ${row.key} failed: ${sent.message}`);
      markFailed(
        this.#sql,
        row.key,
        sent.message,
        giveUp ? null : nextTryAt(row.tries + 1, sent.retryAfterMs, Date.now()),
      );
    }
  }
}
