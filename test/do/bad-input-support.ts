import { expect } from "vitest";
import { api, createSession, listSessionIds, OTHER_TOKEN, TOKEN } from "./helpers";

/** What the bad-input files share: a session's head before and after, and creation checks. */
type Head = { highWater: number; headDigest: string };

export async function head(id: string): Promise<Head> {
  const r = await api(`/v1/sessions/${id}`);
  expect(r.status).toBe(200);
  return { highWater: r.body.highWater, headDigest: r.body.headDigest };
}

/** A fresh session and its head; `unchanged()` asserts the log did not move. */
export async function freshSession(options: unknown = {}) {
  const s = await createSession(options);
  const before = await head(s.id);
  return {
    id: s.id,
    before,
    unchanged: async () => expect(await head(s.id)).toEqual(before),
  };
}

/** For creation cases: runs under the second principal, which only this file's creation cases touch. */
export async function expectNoSessionCreated(attempt: () => Promise<void>) {
  const before = await listSessionIds(OTHER_TOKEN);
  await attempt();
  expect(await listSessionIds(OTHER_TOKEN)).toEqual(before);
}

export const post = (path: string, json: unknown, token: string | null = TOKEN) =>
  api(path, { method: "POST", json, token });
export const postRaw = (path: string, body: string, headers: Record<string, string> = {}) =>
  api(path, { method: "POST", body, headers });
