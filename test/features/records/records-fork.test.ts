import { describe, expect, it } from "vitest";
import { foldWorkspace, resolveWith } from "../../../src/features/fork/facts";
import { decideEntry, decideRevision, TOPIC } from "../../../src/features/records/facts";
import type { Event } from "../../../src/log";
import { renderPrefix } from "../../../src/runtime/prefix-cache";

describe("record decisions", () => {
  const fresh = { revision: 0, coversEntry: 0, entries: 0 };
  it("a new topic is at revision 0; the first write makes 1; a stale one conflicts", () => {
    expect(decideRevision("t", fresh, { content: "a", expectedRevision: 0 })).toEqual({
      ok: true,
      fact: { topic: "t", revision: 1, content: "a", coversEntry: 0 },
    });
    expect(decideRevision("t", { ...fresh, revision: 3 }, { content: "a", expectedRevision: 2 })).toMatchObject({
      ok: false,
      code: "conflict",
    });
  });
  it("coversEntry defaults to the previous revision's and may not pass the last entry", () => {
    const s = { revision: 1, coversEntry: 2, entries: 3 };
    expect(decideRevision("t", s, { content: "b", expectedRevision: 1 })).toMatchObject({ fact: { coversEntry: 2 } });
    expect(decideRevision("t", s, { content: "b", expectedRevision: 1, coversEntry: 4 })).toMatchObject({
      ok: false,
      code: "bad_request",
    });
  });
  it("entries are numbered from 1; refs are sorted, deduplicated and at most highWater", () => {
    expect(decideEntry("t", fresh, 9, { text: "x", refs: [9, 2, 2] })).toEqual({
      ok: true,
      fact: { topic: "t", entry: 1, text: "x", refs: [2, 9] },
    });
    expect(decideEntry("t", fresh, 9, { text: "x", refs: [10] })).toMatchObject({ ok: false, code: "bad_request" });
  });
  it("topic names are URL-safe and never dot segments", () => {
    for (const ok of ["plan", "a.b-c_d", "0", "x".repeat(64)]) expect(TOPIC.test(ok), ok).toBe(true);
    for (const bad of ["", ".", "..", "-a", "a/b", "a b", "x".repeat(65)]) expect(TOPIC.test(bad), bad).toBe(false);
  });
});

let seq = 0;
const call = (callId: string, name: string, args: unknown): Event =>
  ({
    seq: ++seq,
    sessionId: "s",
    author: "model",
    at: "t",
    modelVisibility: "visible",
    content: { type: "functionCall", callId, name, args },
    digest: "",
  }) as Event;
const answer = (callId: string, name: string, status: "ok" | "error", response: unknown): Event =>
  ({
    seq: ++seq,
    sessionId: "s",
    author: "tool",
    at: "t",
    modelVisibility: "visible",
    content: { type: "functionResponse", callId, name, status, response },
    digest: "",
  }) as Event;

describe("foldWorkspace", () => {
  const ctx = {
    normalize: (p: string) => p.replace(/^\.\//, ""),
    resolve: resolveWith(() => null),
    prefix: () => null,
  };
  it("replays writes, exact edits and deletes from ok outcomes only", () => {
    const ws = new Map<string, string>();
    const calls = new Map();
    foldWorkspace(
      ws,
      calls,
      [
        call("1", "write_file", { path: "./a", content: "x y x" }),
        answer("1", "write_file", "ok", {}),
        call("2", "edit_file", { path: "a", oldText: "y", newText: "$&z" }),
        answer("2", "edit_file", "ok", { bytes: 7 }),
        call("3", "write_file", { path: "b", content: "never" }),
        answer("3", "write_file", "error", {}),
        call("4", "write_file", { path: "c", content: "c" }),
        answer("4", "write_file", "ok", {}),
        call("5", "delete_file", { path: "c" }),
        answer("5", "delete_file", "ok", {}),
        call("6", "write_file", { path: "d", content: "pending" }),
      ],
      ctx,
    );
    expect(Object.fromEntries(ws)).toEqual({ a: "x $&z x" });
    expect([...calls.keys()]).toEqual(["6"]);
  });
  it("refuses a replay that disagrees with the recorded size", () => {
    const events = [
      call("1", "write_file", { path: "a", content: "ab" }),
      answer("1", "write_file", "ok", {}),
      call("2", "edit_file", { path: "a", oldText: "a", newText: "long" }),
      answer("2", "edit_file", "ok", { bytes: 3 }),
    ];
    expect(() => foldWorkspace(new Map(), new Map(), events, ctx)).toThrow(/another size/);
  });
  it("renders a prefix as lines for a first compaction", () => {
    expect(renderPrefix([{ role: "user", content: "hi" }])).toBe("[user] hi");
  });
});
