import { describe, expect, it } from "vitest";
import {
  type RunRow,
  reduceRun,
  reduceTrigger,
  type TriggerRow,
  toRun,
  touchesWork,
  WORK_KINDS,
} from "../../../src/features/work/facts";
import { type FiringView, firingDrafts, planFirings, runInputDraft } from "../../../src/features/work/firings";
import { nextDue } from "../../../src/features/work/schedule";
import { type Event, type EventDraft, eventKind } from "../../../src/log";

/** The runs and triggers projections folded over hand-written logs, as the object folds them. */
function fold() {
  const runs = new Map<string, RunRow>();
  const triggers = new Map<string, TriggerRow>();
  const events: Event[] = [];
  const byTurn = (id: string) => [...runs.values()].find((r) => r.turnId === id) ?? null;
  const append = (drafts: EventDraft[], at: string) => {
    for (const d of drafts) {
      const e = { ...d, seq: events.length + 1, sessionId: "s1", at: d.at ?? at, digest: "x" } as Event;
      events.push(e);
      const r = reduceRun(e, { byRun: (id) => runs.get(id) ?? null, byTurn });
      if (r) runs.set(r.runId, r);
      const t = reduceTrigger(e, (n) => triggers.get(n) ?? null, nextDue);
      if (t?.kind === "put") triggers.set(t.row.name, t.row);
      if (t?.kind === "remove") triggers.delete(t.name);
    }
  };
  let ids = 0;
  const view = (now: string, openTurnId: string | null): FiringView => ({
    now: Date.parse(now),
    openTurnId,
    lastRunOf: (name) => [...runs.values()].filter((r) => r.trigger === name).sort((a, b) => b.seq - a.seq)[0] ?? null,
    unfinished: (name) =>
      [...runs.values()].some((r) => r.trigger === name && ["running", "waiting"].includes(r.state)),
    newId: () => `id${++ids}`,
  });
  const fire = (now: string, openTurnId: string | null = null) => {
    const firings = planFirings([...triggers.values()], view(now, openTurnId));
    append(firings.flatMap(firingDrafts), now);
    return firings;
  };
  const created = (name: string, schedule: TriggerRow["schedule"], at: string) =>
    append(
      [
        {
          author: "user",
          modelVisibility: "hidden",
          actions: { stateDelta: { triggerCreated: { name, text: `do ${name}`, schedule } } },
        },
      ],
      at,
    );
  const close = (turnId: string, at: string, reason: "completed" | "stopped" = "completed") =>
    append([{ author: "runtime", modelVisibility: "hidden", turnId, actions: { turnClose: { reason } } }], at);
  const newest = () => [...runs.values()].sort((a, b) => b.seq - a.seq).map(toRun);
  return { runs, triggers, events, append, fire, created, close, newest };
}

describe("planFirings and the runs projection", () => {
  it("a due trigger with no turn open starts a run: hidden triggerFired, then input as trigger:<name>", () => {
    const f = fold();
    f.created("tick", { everySeconds: 60 }, "2026-12-01T10:00:00.000Z");
    expect(f.fire("2026-12-01T10:00:59.000Z")).toEqual([]);
    const [firing] = f.fire("2026-12-01T10:01:00.000Z");
    expect(firing).toMatchObject({ name: "tick", disposition: "start", dueAt: "2026-12-01T10:01:00.000Z" });
    const [marker, input] = f.events.slice(-2);
    expect(marker).toMatchObject({
      modelVisibility: "hidden",
      runId: firing!.runId,
      actions: { stateDelta: { triggerFired: { name: "tick", runId: firing!.runId, dueAt: firing!.dueAt } } },
    });
    expect(input).toMatchObject({
      author: "user",
      source: "trigger:tick",
      runId: firing!.runId,
      content: { text: "do tick" },
    });
    expect(f.newest()).toEqual([
      { runId: firing!.runId, trigger: "tick", state: "running", startedAt: "2026-12-01T10:01:00.000Z" },
    ]);
    expect(f.triggers.get("tick")!.nextAt).toBe(Date.parse("2026-12-01T10:02:00.000Z"));
    f.close(input!.turnId!, "2026-12-01T10:01:05.000Z");
    expect(f.newest()[0]).toMatchObject({
      state: "completed",
      outcome: "completed",
      endedAt: "2026-12-01T10:01:05.000Z",
    });
  });

  it("firings of an unfinished run's trigger are skipped and coalesce into one skipped run with a count", () => {
    const f = fold();
    f.created("tick", { everySeconds: 60 }, "2026-12-01T10:00:00.000Z");
    const [start] = f.fire("2026-12-01T10:01:00.000Z");
    const turnId = f.events.at(-1)!.turnId!;
    const s1 = f.fire("2026-12-01T10:02:00.000Z");
    const s2 = f.fire("2026-12-01T10:03:00.000Z");
    expect(s1[0]!.disposition).toBe("skip");
    expect(s2[0]!.runId).toBe(s1[0]!.runId);
    // A skip names no run or turn on its event: the open turn's run state must not take its ids.
    expect(f.events.at(-1)).not.toHaveProperty("runId");
    expect(f.events.at(-1)).not.toHaveProperty("turnId");
    expect(f.newest()).toEqual([
      {
        runId: s1[0]!.runId,
        trigger: "tick",
        state: "skipped",
        startedAt: "2026-12-01T10:02:00.000Z",
        endedAt: "2026-12-01T10:03:00.000Z",
        count: 2,
      },
      { runId: start!.runId, trigger: "tick", state: "running", startedAt: "2026-12-01T10:01:00.000Z" },
    ]);
    // Once the run finishes, the next firing starts a new run; a later skip is a new skipped run.
    f.close(turnId, "2026-12-01T10:03:30.000Z");
    const [again] = f.fire("2026-12-01T10:04:00.000Z");
    expect(again!.disposition).toBe("start");
    const [s3] = f.fire("2026-12-01T10:05:00.000Z");
    expect(s3!.disposition).toBe("skip");
    expect(s3!.runId).not.toBe(s1[0]!.runId);
    expect(f.newest().map((r) => [r.state, r.state === "skipped" ? r.count : null])).toEqual([
      ["skipped", 1],
      ["running", null],
      ["skipped", 2],
      ["completed", null],
    ]);
  });

  it("a firing while another turn is open is queued (waiting, unfinished) and starts with its text later", () => {
    const f = fold();
    f.append(
      [
        {
          author: "user",
          source: "http",
          modelVisibility: "visible",
          turnId: "chat",
          runId: "chat-run",
          content: { type: "text", text: "hi" },
        },
      ],
      "2026-12-01T10:00:00.000Z",
    );
    f.created("tick", { everySeconds: 60 }, "2026-12-01T10:00:00.000Z");
    const [queued] = f.fire("2026-12-01T10:01:00.000Z", "chat");
    expect(queued!.disposition).toBe("queue");
    expect(f.newest()[0]).toEqual({
      runId: queued!.runId,
      trigger: "tick",
      state: "waiting",
      startedAt: "2026-12-01T10:01:00.000Z",
    });
    // Queued counts as unfinished: the next firing is a skip.
    expect(f.fire("2026-12-01T10:02:00.000Z", "chat")[0]!.disposition).toBe("skip");
    f.close("chat", "2026-12-01T10:02:10.000Z");
    const row = f.runs.get(queued!.runId)!;
    f.append(
      [runInputDraft({ runId: row.runId, turnId: "t2", trigger: "tick", text: row.text! })],
      "2026-12-01T10:02:10.000Z",
    );
    expect(f.events.at(-1)).toMatchObject({ source: "trigger:tick", content: { text: "do tick" } });
    expect(f.runs.get(queued!.runId)).toMatchObject({
      state: "running",
      turnId: "t2",
      startedAt: "2026-12-01T10:01:00.000Z",
    });
    expect(f.runs.get("chat-run")).toMatchObject({ trigger: null, state: "completed", outcome: "completed" });
  });

  it("several triggers due at once: the first starts, the rest queue behind it, in due order", () => {
    const f = fold();
    f.created("b", { at: "2026-12-01T10:00:30.000Z" }, "2026-12-01T10:00:00.000Z");
    f.created("a", { at: "2026-12-01T10:00:20.000Z" }, "2026-12-01T10:00:00.000Z");
    const firings = f.fire("2026-12-01T10:01:00.000Z");
    expect(firings.map((x) => [x.name, x.disposition])).toEqual([
      ["a", "start"],
      ["b", "queue"],
    ]);
    // `at` triggers are removed once fired.
    expect([...f.triggers.keys()]).toEqual([]);
    expect(f.fire("2026-12-01T11:00:00.000Z")).toEqual([]);
  });

  it("firings missed while the object was down collapse into one, and the trigger keeps its phase", () => {
    const f = fold();
    f.created("tick", { everySeconds: 60 }, "2026-12-01T10:00:00.000Z");
    const firings = f.fire("2026-12-01T12:30:15.000Z");
    expect(firings).toHaveLength(1);
    expect(firings[0]!.dueAt).toBe("2026-12-01T10:01:00.000Z");
    expect(f.triggers.get("tick")!.nextAt).toBe(Date.parse("2026-12-01T12:31:00.000Z"));
    // The alarm running again at the same time fires nothing (an at-least-once alarm).
    expect(f.fire("2026-12-01T12:30:15.000Z")).toEqual([]);
  });

  it("a deleted trigger is gone; a rebuilt fold gives the same rows", () => {
    const f = fold();
    f.created("tick", { cron: "*/5 * * * *" }, "2026-12-01T10:00:00.000Z");
    f.fire("2026-12-01T10:05:00.000Z");
    f.append(
      [{ author: "user", modelVisibility: "hidden", actions: { stateDelta: { triggerDeleted: { name: "tick" } } } }],
      "2026-12-01T10:06:00.000Z",
    );
    expect(f.triggers.size).toBe(0);
    expect(f.fire("2026-12-01T11:00:00.000Z")).toEqual([]);
    const again = fold();
    again.append(f.events, "ignored");
    expect([...again.runs.values()]).toEqual([...f.runs.values()]);
    expect(again.triggers.size).toBe(0);
  });

  it("an event the work fold skips (touchesWork false) changes no run or trigger; those it reads have a catch-up kind", () => {
    const f = fold();
    f.created("tick", { everySeconds: 60 }, "2026-12-01T10:00:00.000Z");
    f.fire("2026-12-01T10:01:00.000Z");
    const turnId = f.events.at(-1)!.turnId!;
    const turn = { turnId, runId: f.events.at(-1)!.runId!, invocationId: "i1" };
    f.append(
      [
        { author: "model", modelVisibility: "visible", ...turn, content: { type: "text", text: "on it" } },
        { author: "runtime", modelVisibility: "hidden", ...turn, actions: { modelRequest: { attempt: 1 } } },
        { author: "runtime", modelVisibility: "hidden", actions: { stateDelta: { note: 1, other: 2 } } },
        { author: "user", modelVisibility: "hidden", actions: { stateDelta: { title: "t" } } },
      ] as EventDraft[],
      "2026-12-01T10:01:01.000Z",
    );
    f.fire("2026-12-01T10:02:00.000Z", turnId);
    f.close(turnId, "2026-12-01T10:02:05.000Z");
    f.append(
      [{ author: "user", modelVisibility: "hidden", actions: { stateDelta: { triggerDeleted: { name: "tick" } } } }],
      "2026-12-01T10:03:00.000Z",
    );
    // Lookups that always find something: a skipped event must change nothing even so.
    const anyRun = [...f.runs.values()][0]!;
    const anyTrigger: TriggerRow = { name: "tick", text: "x", schedule: { everySeconds: 60 }, anchor: 0, nextAt: 1 };
    const find = { byRun: () => ({ ...anyRun, state: "running" as const }), byTurn: () => null };
    const skipped = f.events.filter((e) => !touchesWork(e));
    expect(skipped.length).toBeGreaterThanOrEqual(4);
    for (const e of skipped) {
      expect(reduceRun(e, find)).toBeNull();
      expect(reduceTrigger(e, () => anyTrigger, nextDue)).toBeNull();
    }
    const read = f.events.filter(touchesWork);
    expect(read.length).toBeGreaterThanOrEqual(6);
    for (const e of read) expect(WORK_KINDS).toContain(eventKind(e));
  });
});
