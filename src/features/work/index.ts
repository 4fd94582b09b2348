/** Work beyond one turn: inbox, triggers and the runs they start. */
import type { Feature } from "../types";
import { applyWorkEvents, catchUpWork, nextTriggerDue, touchesWorkEvents } from "./cache";
import { workRoutes } from "./routes";

export const work: Feature = {
  name: "work",
  routes: workRoutes,
  apply: applyWorkEvents,
  touches: touchesWorkEvents,
  catchUp: catchUpWork,
  nextDue: nextTriggerDue,
};
