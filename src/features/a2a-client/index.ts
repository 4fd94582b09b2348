/**
 * The A2A client (docs/API.md#a2a-agents): each agent of `A2A_AGENTS` is a tool `<name>__send`
 * whose outcome comes from the agent's task, through the runtime's remote calls
 * (docs/design.md#remote-calls); the route its push notifications come to.
 */
import type { Feature } from "../types";
import { agentTools, foldAgents, recordAgents } from "./agents";
import { a2aConfigOf, a2aHosts } from "./config";
import { notifyRoutes } from "./routes";

export const a2aClient: Feature = {
  name: "a2a-client",
  publicRoutes: notifyRoutes,
  configProblem: (env) => {
    const config = a2aConfigOf(env);
    return config.ok ? null : config.message;
  },
  deniedHosts: a2aHosts,
  fold: foldAgents,
  beforeTurn: recordAgents,
  context: (view) => {
    const tools = agentTools(view.slice);
    return tools.length > 0 ? { tools } : {};
  },
};
