import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { settledTo } from "./drive";
import { api, createSession } from "./helpers";
import { runtimeOn } from "./runtime-on";

describe("the session summary is a cache of the log", () => {
  it("is rebuilt from the log when its rows are lost, giving the same Session", async () => {
    const s = await createSession({ title: "cache", system: "x".repeat(10_000) });
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "note the weather" } });
    const before = await settledTo(s.id, (x) => x.openTurn === false);
    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(s.id));
    const { keys, rebuilt, cachedAgain } = await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      const keys = sql.exec<{ key: string; bytes: number }>("SELECT key, length(value) AS bytes FROM meta").toArray();
      sql.exec("DELETE FROM meta");
      // A fresh runtime over the same storage, as after an eviction.
      const { runtime } = runtimeOn(sql, (fn) => state.storage.transactionSync(fn), s.id);
      const cachedAgain = sql
        .exec("SELECT key FROM meta ORDER BY key")
        .toArray()
        .map((r) => r.key);
      return { keys, rebuilt: runtime.session(), cachedAgain };
    });
    // The 10 KB system prompt lives in the options row, written once, not in the per-commit summary row.
    expect(keys.find((r) => r.key === "options")!.bytes).toBeGreaterThan(10_000);
    expect(keys.find((r) => r.key === "summary")!.bytes).toBeLessThan(2_000);
    expect(rebuilt).toEqual(before);
    expect(cachedAgain).toEqual(["options", "summary", "summary_at"]);
  });

  it("a row that does not parse (unversioned, or another shape) is not cast: the summary is rebuilt from the log", async () => {
    const s = await createSession({ title: "parsed" });
    await api(`/v1/sessions/${s.id}/messages`, { method: "POST", json: { text: "note the weather" } });
    const before = await settledTo(s.id, (x) => x.openTurn === false);
    const stub = env.SESSIONS.get(env.SESSIONS.idFromString(s.id));
    const { rebuilt, row } = await runInDurableObject(stub, (_o, state) => {
      const sql = state.storage.sql;
      // The pre-versioning shape, with a field that lies: a cast would believe it.
      const legacy = sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'summary'").one().value;
      const lying = { ...JSON.parse(legacy).summary, title: "not from the log" };
      sql.exec("UPDATE meta SET value = ? WHERE key = 'summary'", JSON.stringify(lying));
      const { runtime } = runtimeOn(sql, (fn) => state.storage.transactionSync(fn), s.id);
      const row = JSON.parse(sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'summary'").one().value);
      return { rebuilt: runtime.session(), row };
    });
    expect(rebuilt).toEqual(before);
    expect(rebuilt.title).toBe("parsed");
    expect(row.v).toBe(1);
  });
});
