/**
 * docs/design.md §4: the loop plans each step from the open turn's run state. The runtime keeps
 * that state and folds in only the events committed since it last asked; what it answers must be
 * what projecting the turn's suffix from the log gives, however the events arrived.
 */
import { expect, it } from "vitest";
import type { Event } from "../../src/contract/event";
import { projectRunState } from "../../src/projections";
import { type OpenTurnRef, TurnSuffix } from "../../src/runtime/turn-suffix";
import { newLog } from "../unit/support/fixtures";
import { withStore } from "./helpers";

it("the kept run state equals the projection of the suffix read from the log, commit by commit", async () => {
  await withStore((store) => {
    const ev = newLog({ sessionId: "s1", turnId: "t1" });
    ev.user("go");
    ev.modelRequest();
    ev.modelCall("c1", "read_file", { path: "a" });
    ev.modelCall("c2", "delete_file", { path: "b" });
    ev.dispatch("c1", "read");
    ev.response("c1", "ok");
    ev.permissionRequest("c2");
    ev.permissionDecision("apr_c2", "approve");
    ev.dispatch("c2", "write");
    ev.response("c2", "ok");
    ev.modelRequest();
    ev.modelCall("c3", "read_file", { path: "c" });
    ev.dispatch("c3", "read");
    ev.response("c3", "ok");
    ev.modelRequest();
    ev.modelText("done");
    const drafts = ev.events.map(({ seq: _s, sessionId: _i, at: _a, digest: _d, ...draft }) => draft);
    const suffix = new TurnSuffix();
    const committed: Event[] = [];
    let turn: OpenTurnRef = { turnId: "t1", startSeq: 1, lastModelRequestSeq: null };
    // Commits of one and of two events, with the state asked for after each (and twice after some).
    for (let i = 0; i < drafts.length; ) {
      const size = i % 3 === 0 ? 2 : 1;
      committed.push(...store.append(drafts.slice(i, i + size)));
      i += size;
      const lastRequest = committed.findLast((e) => e.actions?.modelRequest);
      turn = { ...turn, lastModelRequestSeq: lastRequest?.seq ?? null };
      const from = turn.lastModelRequestSeq ?? turn.startSeq;
      const expected = projectRunState(committed.filter((e) => e.seq >= from));
      expect(suffix.state(store, turn)).toEqual(expected);
      if (i % 2 === 0) expect(suffix.state(store, turn)).toEqual(expected);
      expect(suffix.read(store, turn).map((e) => e.seq)).toEqual(
        committed.filter((e) => e.seq >= from).map((e) => e.seq),
      );
    }
    expect(suffix.state(store, turn).modelAnswered).toBe(true);
    expect(suffix.state(store, null)).toEqual(projectRunState([]));
  });
});
