import { describe, expect, it } from "vitest";
import { FEATURES, featuresDue } from "../../../src/features";
import { createApp } from "../../../src/http";
import type { SqlLike } from "../../../src/storage/sql";
import { BUILTIN_TOOLS } from "../../../src/tools";

describe("features mounted from one list", () => {
  it("the registry holds the built-in tools of the contract in their order, the features' last", () => {
    expect(Object.keys(BUILTIN_TOOLS)).toEqual([
      "list_files",
      "read_file",
      "search_files",
      "write_file",
      "edit_file",
      "delete_file",
      "http_fetch",
      "read_archive",
      "wait_for",
      "read_record",
      "write_record",
      "append_record_entry",
      "spawn_session",
      "remember",
      "recall",
      "forget",
    ]);
    for (const f of FEATURES) for (const t of f.tools ?? []) expect(BUILTIN_TOOLS[t.name]).toBe(t);
  });

  it("the app answers each feature's routes", () => {
    const paths = new Set(createApp().routes.map((r) => r.path));
    for (const p of [
      "/v1/sessions/:id/inbox",
      "/v1/sessions/:id/triggers",
      "/v1/sessions/:id/runs",
      "/v1/sessions/:id/records",
      "/v1/sessions/:id/records/:topic",
      "/v1/sessions/:id/records/:topic/entries",
      "/v1/sessions/:id/fork",
    ])
      expect(paths).toContain(p);
  });

  it("the alarm is due at the earliest time any feature asks for, or never", () => {
    const sql = {} as SqlLike;
    const at = (due: (number | null)[]) =>
      featuresDue(
        sql,
        due.map((d, i) => ({ name: `f${i}`, nextDue: (s: SqlLike) => (s === sql ? d : -1) })),
      );
    expect(at([])).toBe(null);
    expect(at([null, 30, 20])).toBe(20);
    expect(at([5, null])).toBe(5);
  });
});
