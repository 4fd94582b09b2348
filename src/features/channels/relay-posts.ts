/**
 * A session's report queued as the channel's post (docs/API.md#channels), keyed by the event it
 * reports (`s:<session>:<seq>`), so a report handed over twice is posted once. An approval is a
 * card whose buttons carry a short card id (Telegram allows 64 bytes of callback data) that
 * names the request and the argument digest it was shown with; a turn's progress is one
 * message, edited at most every 5 s, and its pending edit is dropped once the turn closes.
 */
import { sha256Hex } from "../../log";
import type { SqlLike } from "../../storage/sql";
import { progressDueAt } from "./outbox";
import type { ThreadRef } from "./platform";
import { approvalBody, reportText } from "./render";
import type { Report } from "./reports";
import { dropPending, enqueuePost, saveCard, upsertProgress } from "./store";

export type SessionReport = { sessionId: string; seq: number; thread: ThreadRef; report: Report };

/** The card id of an approval request: the same for the same request, whoever computes it. */
export function cardIdOf(sessionId: string, requestId: string): string {
  return sha256Hex(`${sessionId}\n${requestId}`).slice(0, 16);
}

export function enqueueReport(sql: SqlLike, { sessionId, seq, thread, report }: SessionReport, now: number): boolean {
  const key = `s:${sessionId}:${seq}`;
  switch (report.kind) {
    case "progress":
      upsertProgress(sql, `p:${sessionId}:${report.turnId}`, thread, report.text, (sentAt) =>
        progressDueAt(sentAt, now),
      );
      return true;
    case "approval": {
      const cardId = cardIdOf(sessionId, report.requestId);
      saveCard(sql, cardId, { sessionId, requestId: report.requestId, argsDigest: report.argsDigest });
      const card = { cardId, title: "Approval needed", body: approvalBody(report) };
      return enqueuePost(sql, key, thread, { text: reportText(report), card }, now);
    }
    case "answer":
    case "stopped":
    case "failed":
      dropPending(sql, `p:${sessionId}:${report.turnId}`);
      return enqueuePost(sql, key, thread, { text: reportText(report) }, now);
    default:
      return enqueuePost(sql, key, thread, { text: reportText(report) }, now);
  }
}
