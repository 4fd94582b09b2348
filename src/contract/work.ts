/** Work beyond one turn: triggers and the runs they start. */
export type TriggerSchedule = { everySeconds: number } | { cron: string } | { at: string };

export type Trigger = { name: string; text: string; schedule: TriggerSchedule; nextAt: string | null };

export type RunState = "running" | "waiting" | "completed" | "skipped";
export type RunOutcome = "completed" | "stopped" | "failed";

export type Run = {
  runId: string;
  trigger: string | null;
  state: RunState;
  outcome?: RunOutcome;
  /** The wait the run's turn is blocked on, if any. */
  waitId?: string;
  startedAt: string;
  endedAt?: string;
  /** Firings a `skipped` run stands for (consecutive skips coalesce). */
  count?: number;
};
