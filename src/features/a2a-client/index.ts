/**
 * The A2A client (docs/API.md#a2a-agents): each agent of `A2A_AGENTS` is a tool `<name>__send`
 * whose outcome comes from the agent's task, through the runtime's remote calls
 * (docs/design.md#remote-calls); the route its push notifications come to.
 */

import { MIN_SECRET_CHARS } from "../../tools/secrets";
import type { Feature } from "../types";
import { agentTools, foldAgents, listedAgentTools, recordAgents } from "./agents";
import { a2aConfigOf, a2aHosts, a2aSecretNames } from "./config";
import { notifyRoutes } from "./routes";

export const a2aClient: Feature = {
  name: "a2a-client",
  publicRoutes: notifyRoutes,
  configProblem: (env) => {
    const config = a2aConfigOf(env);
    if (!config.ok) return config.message;
    // docs/API.md#secrets: a secret too short to keep out of the log is refused, as for MCP_SERVERS.
    for (const agent of config.agents)
      for (const name of a2aSecretNames(agent)) {
        const value = env[name];
        if (typeof value === "string" && value.length > 0 && value.length < MIN_SECRET_CHARS)
          return `secret ${name} is shorter than ${MIN_SECRET_CHARS} characters: too short to keep out of the log`;
      }
    return null;
  },
  deniedHosts: a2aHosts,
  listedTools: listedAgentTools,
  fold: foldAgents,
  beforeTurn: recordAgents,
  context: (view) => {
    const tools = agentTools(view.slice);
    return tools.length > 0 ? { tools } : {};
  },
};
