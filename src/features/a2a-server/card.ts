/**
 * The agent card (docs/API.md#a2a-server): public, the protocol's JSON form. It names the
 * deployment (`A2A_AGENT_NAME`, default `highwater`), the JSON-RPC endpoint, the bearer scheme
 * every call needs, and one general skill: a session answers any text task with its tools.
 */
import type { AgentCard } from "@a2a-js/sdk";

export const PROTOCOL_VERSION = "1.0";
export const SCHEME = "bearer";

export function agentCard(env: { A2A_AGENT_NAME?: string }, origin: string): AgentCard {
  const name = env.A2A_AGENT_NAME?.trim() || "highwater";
  return {
    name,
    description:
      "A highwater agent: each context is a durable session with an event log; each task is one of its turns.",
    supportedInterfaces: [
      { url: `${origin}/a2a`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: PROTOCOL_VERSION },
    ],
    provider: undefined,
    version: "0.1.0",
    documentationUrl: `${origin}/`,
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [SCHEME]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { description: "one of the deployment's API tokens", scheme: "Bearer", bearerFormat: "" },
        },
      },
    },
    securityRequirements: [{ schemes: { [SCHEME]: { list: [] } } }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "session",
        name: "Agent session",
        description:
          "Works on a text task in a durable session with a workspace, files and the deployment's tools; a message with the same contextId continues the session.",
        tags: ["agent", "long-running"],
        examples: ["Write a short plan for a trip to Lisbon and keep it in notes/plan.md"],
        inputModes: ["text/plain"],
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
    iconUrl: undefined,
  };
}
