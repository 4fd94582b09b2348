import { describe, expect, it } from "vitest";
import { cronProblem, nextDue } from "../../../src/features/work/schedule";

const T = (iso: string) => Date.parse(iso);

describe("nextDue (docs/API.md §6: everySeconds, five-field UTC cron, at)", () => {
  const anchor = T("2026-12-01T10:00:00.000Z");
  it.each([
    ["before the first period", { everySeconds: 60 }, "2026-12-01T09:59:00.000Z", "2026-12-01T10:01:00.000Z"],
    ["at the anchor", { everySeconds: 60 }, "2026-12-01T10:00:00.000Z", "2026-12-01T10:01:00.000Z"],
    [
      "exactly on a due time: the next one",
      { everySeconds: 60 },
      "2026-12-01T10:01:00.000Z",
      "2026-12-01T10:02:00.000Z",
    ],
    // Missed firings collapse: from a time long after, the next is one period after now, in phase.
    ["long after: one due, in phase", { everySeconds: 60 }, "2026-12-01T13:37:30.000Z", "2026-12-01T13:38:00.000Z"],
    ["every second", { everySeconds: 1 }, "2026-12-01T10:00:05.500Z", "2026-12-01T10:00:06.000Z"],
    ["cron every 5 minutes", { cron: "*/5 * * * *" }, "2026-12-01T10:02:00.000Z", "2026-12-01T10:05:00.000Z"],
    ["cron is UTC", { cron: "0 12 * * *" }, "2026-12-01T12:00:00.000Z", "2026-12-02T12:00:00.000Z"],
    ["cron on a weekday", { cron: "30 9 * * 1" }, "2026-12-01T10:00:00.000Z", "2026-12-07T09:30:00.000Z"],
    ["at: its time", { at: "2026-12-24T18:00:00.000Z" }, "2026-12-01T10:00:00.000Z", "2026-12-24T18:00:00.000Z"],
  ])("%s", (_name, schedule, after, expected) => {
    expect(new Date(nextDue(schedule, T(after), anchor)!).toISOString()).toBe(expected);
  });
});

describe("cronProblem", () => {
  it.each(["* * * * *", "*/5 * * * *", "0 12 * * 1-5", "15 3 1 */2 *"])("accepts %s", (p) => {
    expect(cronProblem(p)).toBeNull();
  });
  it.each(["* * * *", "* * * * * *", "61 * * * *", "* 24 * * *", "a b c d e", ""])("refuses %j", (p) => {
    expect(cronProblem(p)).toMatch(/^cron: /);
  });
  it.each(["0 0 31 2 *", "0 0 30 2 *", "0 0 31 6 *"])("refuses %j, which matches no date", (p) => {
    expect(cronProblem(p, Date.UTC(2026, 11, 1))).toMatch(/^cron: .*never fire/);
  });
  it("accepts a leap day, which is years away at most", () => {
    expect(cronProblem("0 0 29 2 *", Date.UTC(2026, 11, 1))).toBeNull();
  });
});
