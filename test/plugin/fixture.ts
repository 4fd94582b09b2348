/**
 * A fixture feature, written against the plugs only (docs/design.md#plugs): one tool whose
 * outcome records a stamp, one table that follows the log (`apply`, `catchUp`), one due time
 * (the earliest stamp's), one object operation and one route that calls it.
 */
import { z } from "zod";
import { unwrap } from "../../src/contract";
import type { Feature } from "../../src/features/types";
import { callerOf, type EdgeApp } from "../../src/http/types";
import type { Event } from "../../src/log";
import { rows, run, type SqlLike } from "../../src/storage";
import type { ToolDefinition } from "../../src/tools/types";

/** Far in the future, so no other part of the object is due later than a stamp. */
export const STAMP_DUE_AT = 4_000_000_000_000;

type Stamp = { label: string; dueAt: number };

const stampOf = (e: Event): Stamp | null => {
  const s = e.actions?.stateDelta?.fixtureStamp as Stamp | undefined;
  return s && typeof s.label === "string" && typeof s.dueAt === "number" ? s : null;
};

const stampTool: ToolDefinition<{ label: string }> = {
  name: "fixture_stamp",
  description: "Stamps the session with a label.",
  input: z.object({ label: z.string().min(1).max(64) }),
  effect: () => "write",
  run: async ({ label }) => ({
    status: "ok",
    response: { stamped: label },
    stateDelta: { fixtureStamp: { label, dueAt: STAMP_DUE_AT } },
  }),
};

function applyStamps(sql: SqlLike, events: Event[]): void {
  for (const e of events) {
    const s = stampOf(e);
    if (s)
      run(sql)`INSERT OR IGNORE INTO fixture_stamps (seq, label, due_at) VALUES (${e.seq}, ${s.label}, ${s.dueAt})`;
  }
}

export const stamps: Feature = {
  name: "stamps",
  tools: [stampTool],
  touches: (events) => events.some((e) => stampOf(e) !== null),
  apply: applyStamps,
  catchUp: (sql, store, transactionSync) =>
    transactionSync(() => {
      run(
        sql,
      )`CREATE TABLE IF NOT EXISTS fixture_stamps (seq INTEGER PRIMARY KEY, label TEXT NOT NULL, due_at INTEGER NOT NULL)`;
      let after = rows<{ seq: number | null }>(sql)`SELECT MAX(seq) AS seq FROM fixture_stamps`[0]?.seq ?? 0;
      for (let page = store.readAfter(after, 1000); page.length > 0; page = store.readAfter(after, 1000)) {
        applyStamps(sql, page);
        after = page.at(-1)!.seq;
      }
    }),
  nextDue: (sql) => rows<{ at: number | null }>(sql)`SELECT MIN(due_at) AS at FROM fixture_stamps`[0]?.at ?? null,
  operations: {
    list: ({ sql }) => ({
      stamps: rows<{ seq: number; label: string }>(sql)`SELECT seq, label FROM fixture_stamps ORDER BY seq`,
    }),
  },
  routes: (app: EdgeApp) => {
    app.get("/v1/sessions/:id/stamps", async (c) =>
      c.json(unwrap(await c.get("session").call(callerOf(c), "stamps", "list", {}))),
    );
  },
};
