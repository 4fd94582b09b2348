/** Every feature beyond a turn, in mounting order (routes, then tools as the model sees them). */

import { featuresDue as dueOf } from "../runtime/feature-hooks";
import type { SqlLike } from "../storage/sql";
import { a2aClient } from "./a2a-client";
import { a2aServer } from "./a2a-server";
import { channels } from "./channels";
import { children } from "./children";
import { fork } from "./fork";
import { mcpServer } from "./mcp-server";
import { memory } from "./memory";
import { records } from "./records";
import { skills } from "./skills";
import type { Feature } from "./types";
import { work } from "./work";

export { buildDeploymentSkills, type DeploymentSkill, installDeploymentSkills } from "./skills";
export type { Feature } from "./types";

export const FEATURES: readonly Feature[] = [
  work,
  records,
  children,
  fork,
  memory,
  skills,
  mcpServer,
  a2aServer,
  a2aClient,
  channels,
];

/** The earliest time any feature needs the alarm, or null. */
export function featuresDue(sql: SqlLike, features: readonly Feature[] = FEATURES): number | null {
  return dueOf(sql, features);
}
