/** Sub-sessions: the `spawn_session` tool; the calls between objects are RPC. */
import type { Feature } from "../types";
import { spawnSessionTool } from "./tool";

export const children: Feature = { name: "children", tools: [spawnSessionTool] };
