/**
 * One inbound event, handled after the webhook was answered (docs/API.md#channels): a refusal
 * for a user not allowed, a text command, a message to the thread's session (which a mention or
 * a direct message creates), or a button click deciding an approval. Replies go to the outbox.
 */
import type { Result } from "../../contract";
import type { SqlLike } from "../../storage/sql";
import type { Channel } from "./config";
import type { Inbound, ThreadRef } from "./platform";
import { commandOf, REFUSAL, statusText } from "./render";
import type { SessionsPort } from "./sessions";
import { enqueuePost, readCard, saveThread, sessionOfThread } from "./store";

export type HandleDeps = { sql: SqlLike; channel: Channel; sessions: SessionsPort; now: number };

type Message = Extract<Inbound, { kind: "message" }>;
type Click = Extract<Inbound, { kind: "click" }>;

/** Whether the channel takes requests from this user. */
export function allowed(channel: Channel, user: string): boolean {
  return channel.allowUsers.includes(user);
}

function reply(d: HandleDeps, key: string, thread: ThreadRef, text: string): void {
  enqueuePost(d.sql, `in:${key}`, thread, { text }, d.now);
}

/** Handles one stored inbound event; a throw leaves it for the next try (the key makes each step once). */
export async function handleInbound(d: HandleDeps, key: string, inbound: Inbound): Promise<void> {
  if (inbound.kind === "message") return handleMessage(d, key, inbound);
  if (inbound.kind === "click") return handleClick(d, key, inbound);
}

async function handleMessage(d: HandleDeps, key: string, m: Message): Promise<void> {
  if (!allowed(d.channel, m.user)) return reply(d, key, m.thread, REFUSAL);
  let sessionId = sessionOfThread(d.sql, m.thread.id);
  const command = commandOf(m.text);
  if (sessionId && command) return runCommand(d, key, m.thread, sessionId, command);
  if (!sessionId) {
    // A plain reply in a thread that is no session's is not for us (Slack sends every thread message).
    if (!m.starts || m.text === "") return;
    const title = `${d.channel.kind}: ${m.text.slice(0, 60)}`;
    sessionId = await d.sessions.open(m.thread, title);
    saveThread(d.sql, m.thread, sessionId);
  }
  const r = await d.sessions.post(sessionId, m.text, `ch:${d.channel.name}:${m.eventId}`, `channel:${d.channel.name}`);
  if (!r.ok) reply(d, key, m.thread, `I could not take that message: ${r.error.message}`);
}

async function runCommand(
  d: HandleDeps,
  key: string,
  thread: ThreadRef,
  sessionId: string,
  command: NonNullable<ReturnType<typeof commandOf>>,
): Promise<void> {
  const session = await d.sessions.get(sessionId);
  if (!session.ok) return reply(d, key, thread, `I could not read the session: ${session.error.message}`);
  if (command === "status") {
    const context = await d.sessions.context(sessionId);
    const meter = context.ok
      ? (context.value as { estimatedTokens: number; threshold: number; contextWindow: number })
      : null;
    return reply(d, key, thread, statusText(session.value, meter));
  }
  if (command === "stop") {
    if (!session.value.openTurn) return reply(d, key, thread, "Nothing is running.");
    // The stop's own report ("Stopped.") is posted from the session's log.
    const r = await d.sessions.stop(sessionId);
    if (!r.ok) reply(d, key, thread, `I could not stop: ${r.error.message}`);
    return;
  }
  const pending = session.value.pendingApprovals[0];
  if (!pending) return reply(d, key, thread, "Nothing is waiting for an approval.");
  const r = await d.sessions.decide(sessionId, pending.requestId, command, pending.argsDigest);
  reply(d, key, thread, decidedText(r, command, pending.tool));
}

async function handleClick(d: HandleDeps, key: string, c: Click): Promise<void> {
  if (!allowed(d.channel, c.user)) return reply(d, key, c.thread, REFUSAL);
  const card = readCard(d.sql, c.cardId);
  if (!card) return reply(d, key, c.thread, "This card is stale: it is no approval I know of. Nothing was decided.");
  const r = await d.sessions.decide(card.sessionId, card.requestId, c.decision, card.argsDigest);
  reply(d, key, c.thread, decidedText(r, c.decision, null, c.user));
}

function decidedText(r: Result<unknown>, decision: "approve" | "reject", tool: string | null, user?: string): string {
  const by = user ? ` by ${user}` : "";
  if (r.ok) return `${decision === "approve" ? "Approved" : "Rejected"}${tool ? ` (${tool})` : ""}${by}.`;
  if (r.error.code === "conflict" || r.error.code === "not_found")
    return `This card is stale: ${r.error.message}. Nothing was decided.`;
  return `I could not record the decision: ${r.error.message}`;
}
