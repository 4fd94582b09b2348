import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { api } from "./helpers";

/**
 * Runs the object's slices by hand until the turn closed or waits for a human, then answers the
 * Session. Each `runDurableObjectAlarm` returns when its slice (or the slice already running)
 * has ended; nothing here sleeps. An alarm the platform already took is seen as no alarm, so a
 * session still running is driven again.
 */
export async function settle(id: string, rounds = 500): Promise<any> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromString(id));
  for (let i = 0; i < rounds; i++) {
    if (await runDurableObjectAlarm(stub)) continue;
    const s = (await api(`/v1/sessions/${id}`)).body;
    if (!s.openTurn || s.status === "waiting_approval" || s.status === "waiting") return s;
  }
  throw new Error(`session ${id} did not settle`);
}

/** `settle`, then the Session must satisfy `pred` (else the test fails with what it found). */
export async function settledTo(id: string, pred: (s: any) => boolean): Promise<any> {
  const s = await settle(id);
  if (!pred(s)) throw new Error(`settled in an unexpected state: ${JSON.stringify(s)}`);
  return s;
}
