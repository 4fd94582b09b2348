/** Work beyond one turn: inbox, triggers and the runs they start. */
import type { Feature } from "../types";
import { applyWorkEvents, catchUpWork, nextTriggerDue, oldestQueuedRun, touchesWorkEvents } from "./cache";
import { startQueuedRun } from "./commands";
import { workRoutes } from "./routes";
import { fireTriggers, workOperations } from "./rpc";

export const work: Feature = {
  name: "work",
  routes: workRoutes,
  apply: applyWorkEvents,
  touches: touchesWorkEvents,
  catchUp: catchUpWork,
  // The next trigger; with no turn open, a queued run is due at once.
  nextDue: (sql, s, now) => {
    const trigger = nextTriggerDue(sql);
    if (!s || s.openTurn || oldestQueuedRun(sql) === null) return trigger;
    return trigger === null ? now : Math.min(trigger, now);
  },
  beforeSlice: (host) => {
    fireTriggers(host);
    startQueuedRun(host.runtime, host.sql);
  },
  afterTurn: ({ runtime, sql }) => startQueuedRun(runtime, sql),
  operations: workOperations,
};
