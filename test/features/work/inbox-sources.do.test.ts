import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { allEvents, api, createSession } from "../../do/helpers";

/**
 * An inbox `correlationId` is scoped by its source (docs/API.md#work-beyond-one-turn): the key
 * is `(source, correlationId)`. Sessions whose table holds keys from before (`inbox:<id>`)
 * still answer a repeat from the same source, and only from it.
 */

const inbox = (id: string, source: string, correlationId: string, text = `from ${source}`) =>
  api(`/v1/sessions/${id}/inbox`, { method: "POST", json: { source, text, correlationId } });
const inputs = async (id: string) =>
  (await allEvents(id))
    .filter((e) => e.author === "user" && e.source?.startsWith("inbox:"))
    .map((e) => ({ seq: e.seq, source: e.source }));

describe("correlationId is scoped by source", () => {
  it("jira's 7 after github's 7 is a new input; each source's repeat answers its first and appends nothing", async () => {
    const s = await createSession({ tools: [] });
    const github = await inbox(s.id, "github", "7");
    expect(github.status).toBe(202);
    const jira = await inbox(s.id, "jira", "7");
    expect(jira.status).toBe(202);
    expect(jira.body.seq).not.toBe(github.body.seq);

    const again = [await inbox(s.id, "github", "7", "retry"), await inbox(s.id, "jira", "7", "retry")];
    expect(again.map((r) => r.status)).toEqual([202, 202]);
    expect(again.map((r) => r.body)).toEqual([github.body, jira.body]);
    expect(await inputs(s.id)).toEqual([
      { seq: github.body.seq, source: "inbox:github" },
      { seq: jira.body.seq, source: "inbox:jira" },
    ]);
    await api(`/v1/sessions/${s.id}/stop`, { method: "POST" });
  });

  it("a key stored before sources were part of it still answers its own source's repeat; another source is new", async () => {
    const s = await createSession({ tools: [] });
    const first = await inbox(s.id, "github", "8");
    expect(first.status).toBe(202);
    // The table as an older Worker wrote it: the key without its source.
    await runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromString(s.id)), (_o, state) => {
      const sql = state.storage.sql;
      sql.exec("UPDATE idempotency SET key = 'inbox:8' WHERE key = 'inbox:github:8'");
      expect(sql.exec("SELECT key FROM idempotency WHERE key LIKE 'inbox:%'").toArray()).toEqual([{ key: "inbox:8" }]);
    });
    const repeat = await inbox(s.id, "github", "8", "retry");
    expect(repeat.body).toEqual(first.body);
    const other = await inbox(s.id, "jira", "8");
    expect(other.status).toBe(202);
    expect(other.body.seq).toBeGreaterThan(first.body.seq);
    expect((await inbox(s.id, "jira", "8", "retry")).body).toEqual(other.body);
    expect(await inputs(s.id)).toEqual([
      { seq: first.body.seq, source: "inbox:github" },
      { seq: other.body.seq, source: "inbox:jira" },
    ]);
    await api(`/v1/sessions/${s.id}/stop`, { method: "POST" });
  });
});
