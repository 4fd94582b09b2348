import { describe, expect, it } from "vitest";
import { type AlarmDues, type LoopView, loopDue, nextAlarm, outboxDue } from "../../../src/runtime/alarm";

/** docs/design.md#where-things-live: one owner for the alarm, the earliest of what is owed. */

const NOW = 1_000_000;

describe("nextAlarm: the earliest due time of everything the object owes", () => {
  it.each<[string, AlarmDues, number | null]>([
    ["nothing owed: no alarm", {}, null],
    ["every part null: no alarm", { loop: null, trigger: null, outbox: null, traceExport: null }, null],
    ["only the lease", { loop: NOW + 3_000 }, NOW + 3_000],
    ["only a trigger", { trigger: NOW + 60_000 }, NOW + 60_000],
    ["only the outbox", { outbox: NOW + 1_000 }, NOW + 1_000],
    ["only a trace export", { traceExport: NOW + 5_000 }, NOW + 5_000],
    ["a retry before the trigger", { loop: NOW + 8_000, trigger: NOW + 60_000 }, NOW + 8_000],
    ["a trigger before the lease", { loop: NOW + 3_000, trigger: NOW + 1_000 }, NOW + 1_000],
    // DELETE /triggers must not drop the outbox: with no trigger left, the outbox still wants its retry.
    ["the outbox survives a trigger's removal", { loop: null, trigger: null, outbox: NOW + 2_000 }, NOW + 2_000],
    // The outbox retrying sooner than a slice's backoff does not move the backoff: both are kept, the earliest fires.
    ["a backoff and a later outbox", { loop: NOW + 16_000, outbox: NOW + 30_000 }, NOW + 16_000],
    ["an outbox before a backoff", { loop: NOW + 16_000, outbox: NOW + 1_000 }, NOW + 1_000],
    ["everything at once", { loop: NOW + 4, trigger: NOW + 3, outbox: NOW + 2, traceExport: NOW + 1 }, NOW + 1],
    ["something overdue is due now", { loop: NOW - 5_000, trigger: NOW + 1_000 }, NOW],
  ])("%s", (_name, dues, expected) => {
    expect(nextAlarm(dues, NOW)).toBe(expected);
  });
});

describe("loopDue: when the run loop next needs a slice", () => {
  const base: LoopView = { turn: "runnable", lease: null, wake: null };
  it.each<[string, LoopView, number | null]>([
    ["no turn, nothing queued", { ...base, turn: "none" }, null],
    ["a runnable turn nobody has looked at (a message, a restart)", base, NOW],
    ["a slice running holds its lease", { ...base, lease: NOW + 3_000 }, NOW + 3_000],
    ["a slice running a poisoned head holds the longer lease", { ...base, lease: NOW + 16_000 }, NOW + 16_000],
    ["a model retry keeps its time", { ...base, wake: NOW + 8_000 }, NOW + 8_000],
    ["a failed slice's backoff keeps its time", { ...base, wake: NOW + 4_000 }, NOW + 4_000],
    ["a yield is due now", { ...base, wake: NOW }, NOW],
    ["a parked loop wants nothing until a command moves it", { ...base, wake: "parked" }, null],
    ["a turn waiting for a human or a resume wants nothing", { ...base, turn: "blocked" }, null],
    [
      "a blocked turn whose child create must be sent again",
      { ...base, turn: "blocked", wake: NOW + 1_000 },
      NOW + 1_000,
    ],
    ["a lease wins over an older wish", { ...base, lease: NOW + 3_000, wake: "parked" }, NOW + 3_000],
  ])("%s", (_name, view, expected) => {
    expect(loopDue(view, NOW)).toBe(expected);
  });
});

describe("outboxDue", () => {
  it.each<[string, boolean, number | null, number | null]>([
    ["nothing to deliver", false, NOW + 1_000, null],
    ["never tried: now", true, null, NOW],
    ["a failed delivery: its retry", true, NOW + 4_000, NOW + 4_000],
  ])("%s", (_name, pending, retryAt, expected) => {
    expect(outboxDue(pending, retryAt, NOW)).toBe(expected);
  });
});
