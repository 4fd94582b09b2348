/**
 * A session as an A2A agent (docs/API.md#a2a-server): the agent card and `POST /a2a` at the edge;
 * in the session object, a task read from the log, its push configs, and the push outbox the
 * alarm delivers.
 */
import type { Feature } from "../types";
import { a2aOperations } from "./ops";
import { deliverPush } from "./push-deliver";
import { enqueueFor, outboxDue, touchesPush } from "./push-store";
import { a2aRoutes, FEATURE } from "./routes";

export const a2aServer: Feature = {
  name: FEATURE,
  routes: a2aRoutes,
  operations: a2aOperations,
  apply: enqueueFor,
  touches: touchesPush,
  nextDue: (sql) => outboxDue(sql),
  deliver: deliverPush,
};
