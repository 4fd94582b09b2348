import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { memoryOf } from "../../src/features/memory/object";
import { principalOf } from "../../src/http/auth";
import { directoryIdOf } from "../../src/http/types";
import { api, TOKEN } from "./helpers";

/** The memory object of the principal of `token`, as the Worker and its sessions name it. */
export function memoryStub(token: string = TOKEN) {
  return memoryOf(env, directoryIdOf(env, principalOf(token)).toString());
}

/** Runs `fn` on the SQLite of `token`'s memory object. */
export function onMemorySql<T>(token: string, fn: (sql: SqlStorage) => T): Promise<T> {
  const run = runInDurableObject as unknown as (
    stub: unknown,
    fn: (o: unknown, state: DurableObjectState) => T,
  ) => Promise<T>;
  return run(memoryStub(token), (_o, state) => fn(state.storage.sql));
}

/** Every entry of the principal (all pages), newest first. */
export async function allEntries(token: string = TOKEN): Promise<any[]> {
  const out: any[] = [];
  let before: string | null = null;
  for (;;) {
    const r = await api(`/v1/memory?limit=100${before ? `&before=${before}` : ""}`, { token });
    if (r.status !== 200) throw new Error(`list failed: ${r.status} ${JSON.stringify(r.body)}`);
    out.push(...r.body.entries);
    if (!r.body.next) return out;
    before = r.body.next;
  }
}

export function postMemory(json: unknown, token: string = TOKEN) {
  return api("/v1/memory", { method: "POST", json, token });
}
