/**
 * Delivering the push outbox from the session's alarm (docs/API.md#a2a-server): each due row is
 * marked tried (and the alarm armed for its retry) before its request leaves, then removed once
 * the receiver answers 2xx. A failure waits 1 s, 2 s, 4 s … up to 5 minutes; after
 * `MAX_ATTEMPTS` tries the row is dropped. Only URLs `A2A_PUSH_ALLOWED_HOSTS` allows are ever
 * called, checked again at delivery (the var may have changed), and redirects are not followed.
 */
import { deadline } from "../../contract";
import type { DeliverPort } from "../../runtime/feature";
import { isUrlAllowed, parseAllowedHosts } from "../../tools";
import { dueRows, markTried, type OutboxRow, type PushConfig, readConfig, removeRow } from "./push-store";
import { parseTaskId } from "./task";

export const MAX_ATTEMPTS = 12;
const BASE_MS = 1000;
const CAP_MS = 5 * 60_000;
const TIMEOUT_MS = 10_000;
const BATCH = 20;

/** The wait after the `attempt`-th failed try (from 1). */
export function backoffMs(attempt: number): number {
  return Math.min(CAP_MS, BASE_MS * 2 ** Math.max(0, attempt - 1));
}

/** The allow-list of push URLs: `A2A_PUSH_ALLOWED_HOSTS`, the pattern syntax of `HTTP_TOOL_ALLOWED_HOSTS`. */
export function pushAllowed(env: Record<string, unknown>, url: URL): boolean {
  const csv = env.A2A_PUSH_ALLOWED_HOSTS;
  return isUrlAllowed(url, parseAllowedHosts(typeof csv === "string" ? csv : undefined));
}

const STATE_JSON: Record<string, string> = {
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  canceled: "TASK_STATE_CANCELED",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  working: "TASK_STATE_WORKING",
};

/** The notification: a `StreamResponse` holding the task's status update, as the protocol's JSON. */
export function notificationOf(r: OutboxRow): string {
  const contextId = parseTaskId(r.task_id)?.sessionId ?? "";
  return JSON.stringify({
    statusUpdate: {
      taskId: r.task_id,
      contextId,
      status: { state: STATE_JSON[r.state] ?? "TASK_STATE_UNSPECIFIED", timestamp: r.at },
      metadata: { "io.highwater/seq": r.seq },
    },
  });
}

function headersOf(c: PushConfig): Record<string, string> {
  const h: Record<string, string> = { "content-type": "application/a2a+json" };
  if (c.token) h["x-a2a-notification-token"] = c.token;
  if (c.authentication) h.authorization = `${c.authentication.scheme} ${c.authentication.credentials}`;
  return h;
}

async function send(fetcher: typeof fetch, c: PushConfig, body: string): Promise<boolean> {
  const limit = deadline(TIMEOUT_MS);
  try {
    const res = await fetcher(c.url, {
      method: "POST",
      headers: headersOf(c),
      body,
      redirect: "manual",
      signal: limit.signal,
    });
    await res.body?.cancel();
    return res.status >= 200 && res.status < 300;
  } catch {
    return false;
  } finally {
    limit.clear();
  }
}

/** Delivers what is due; never throws (a failed try is scheduled again). */
export async function deliverPush(port: DeliverPort): Promise<void> {
  const { sql, env } = port;
  const now = port.now();
  const due = dueRows(sql, now, BATCH);
  if (due.length === 0) return;
  for (const r of due) markTried(sql, r, now + backoffMs(r.attempts + 1));
  await port.arm();
  for (const r of due) {
    const config = readConfig(sql, r.task_id, r.config_id);
    let url: URL | null = null;
    try {
      url = config ? new URL(config.url) : null;
    } catch {}
    if (!config || !url || !pushAllowed(env, url)) {
      removeRow(sql, r);
      continue;
    }
    const ok = await send(port.fetch, config, notificationOf(r));
    if (ok) removeRow(sql, r);
    else if (r.attempts + 1 >= MAX_ATTEMPTS) {
      console.warn(`a2a push: gave up on ${config.url} for task ${r.task_id} after ${MAX_ATTEMPTS} tries`);
      removeRow(sql, r);
    }
  }
}
