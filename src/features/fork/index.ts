/** Fork: a new session from a parent's log up to a seq. */
import type { Feature } from "../types";
import { forkRoutes } from "./routes";

export const fork: Feature = { name: "fork", routes: forkRoutes };
