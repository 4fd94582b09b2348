/**
 * docs/design.md#3-storage: the writer's loop reads what it just committed from the events the
 * append built, not by reading its rows back. Whatever shape a commit took (one event, a batch, a
 * payload moved to the blob store, a result with a model-view row), the event it reads must be
 * its row parsed: the same fields, and the same canonical text as the stored body.
 */
import { expect, it } from "vitest";
import { canonical } from "../../src/contract/canonical";
import { type Event, type EventDraft, eventCallId, eventKind } from "../../src/contract/event";
import { INLINE_EVENT_LIMIT } from "../../src/log";
import { parseRow } from "../../src/log/event-rows";
import { newLog } from "../unit/support/fixtures";
import { withStore } from "./helpers";

it("the writer's own events, as its loop reads them, are its stored rows parsed", async () => {
  await withStore((store) => {
    const ev = newLog({ sessionId: "s1", turnId: "t1" });
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", { path: "a", nested: { z: 1, a: [2, { y: null, b: "é" }] } });
    ev.modelCall("c2", "read_file", { path: "b" });
    ev.dispatch("c1", "read");
    // A result over the inline limit: its payload goes to the blob store, the row holds a reference.
    ev.response("c1", "ok", { text: "x".repeat(INLINE_EVENT_LIMIT + 10) });
    ev.dispatch("c2", "read");
    // An offloaded result: the row is written with a model-view row beside it.
    ev.response("c2", "ok", "short preview", {
      stateDelta: { offload: { sha256: "a".repeat(64), bytes: 40_000, preview: "short preview" } },
    });
    ev.modelRequest();
    ev.modelText("done");
    const drafts: EventDraft[] = ev.events.map(({ seq: _s, sessionId: _i, digest: _d, ...draft }) => draft);
    // A draft with a field set to undefined: the stored body has no such key.
    drafts[0] = { ...drafts[0]!, invocationId: undefined } as unknown as EventDraft;
    const read: Event[] = [];
    // One at a time, then in batches of two and three.
    for (let i = 0, size = 1; i < drafts.length; i += size, size = (size % 3) + 1) {
      const before = store.head().highWater;
      store.append(drafts.slice(i, i + size));
      read.push(...store.readOwnAfter(before, 100));
    }
    const rows = store.rowsFrom(1);
    expect(read.map((e) => e.seq)).toEqual(rows.map((r) => r.seq));
    for (const [i, row] of rows.entries()) {
      const { digest, ...body } = read[i]!;
      expect(digest).toBe(row.digest);
      expect(canonical(body)).toBe(row.body);
      expect(JSON.parse(JSON.stringify(read[i]))).toStrictEqual(parseRow(row));
    }
    expect(JSON.stringify(read[5]!.content)).toContain('"$blob"');
  });
});

it("a commit of many events writes each its own row with its own columns", async () => {
  await withStore((store, sql) => {
    const ev = newLog({ sessionId: "s1", turnId: "t1" });
    ev.user("go");
    ev.modelRequest();
    // 60 calls in a row, then runs of other shapes.
    for (let i = 0; i < 60; i++) ev.modelCall(`c${i}`, "read_file", { path: `p${i}` });
    for (let i = 0; i < 3; i++) ev.dispatch(`c${i}`, "read");
    ev.response("c0", "ok");
    ev.modelText("between");
    ev.modelText("and again");
    // An author that is not a plain name is bound, not written into the statement.
    const drafts: EventDraft[] = ev.events.map(({ seq: _s, sessionId: _i, digest: _d, ...draft }) => draft);
    drafts.push({ ...drafts[0]!, author: "o'brien" as Event["author"] });
    const committed = store.append(drafts);
    const rows = sql
      .exec<{
        seq: number;
        author: string;
        visibility: string;
        kind: string;
        call_id: string | null;
        body: string;
        digest: string;
      }>("SELECT seq, author, visibility, kind, call_id, body, digest FROM events ORDER BY seq")
      .toArray();
    expect(rows).toHaveLength(drafts.length);
    expect(rows).toEqual(
      committed.map((e) => {
        const { digest, ...body } = e;
        return {
          seq: e.seq,
          author: e.author,
          visibility: e.modelVisibility,
          kind: eventKind(e),
          call_id: eventCallId(e),
          body: canonical(body),
          digest,
        };
      }),
    );
    expect(rows.at(-1)!.author).toBe("o'brien");
  });
});
