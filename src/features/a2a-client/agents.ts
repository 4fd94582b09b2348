/**
 * The agents a session may call (docs/API.md#a2a-agents): recorded as a hidden
 * `stateDelta.a2aAgents` before a turn's first model call when the configured set changed, so a
 * turn keeps its tools until it closes and a request rebuilt after a restart has the same bytes.
 * Each agent is a tool `<name>__send { text }`: a remote call (docs/design.md#remote-calls) whose
 * send is A2A `SendMessage` with the call's idempotency key as `messageId`, polled with `GetTask`
 * and cancelled with `CancelTask`.
 */
import { z } from "zod";
import type { ToolInfo } from "../../contract";
import { canonical, type EventDraft, sha256Hex } from "../../log";
import type { TurnPort } from "../../runtime/feature";
import { remoteAnswer } from "../../runtime/remote-drafts";
import { toolSpecs } from "../../tools";
import type { RemoteTaskPort, ToolContext, ToolDefinition, ToolResult } from "../../tools/types";
import { clientFor, isTask, sendText } from "./client";
import { type A2aAgent, a2aConfigOf } from "./config";
import { messageAnswer, taskStatus } from "./task-status";

/** What the log records of an agent: what its tool is. */
export type RecordedAgent = { name: string; effect: "write" | "idempotent" };
export type AgentsSlice = { digest: string; agents: RecordedAgent[] };

/** Where push notifications go: `PUBLIC_URL` + this + the token. */
export const NOTIFY_PATH = "/v1/a2a/notify/";

const SendArgs = z.strictObject({
  text: z
    .string()
    .min(1)
    .max(64 * 1024),
});

/** Folds `stateDelta.a2aAgents` into the feature's slice. Pure. */
export function foldAgents(slice: unknown, e: { actions?: { stateDelta?: Record<string, unknown> } }): unknown {
  const d = e.actions?.stateDelta?.a2aAgents as Partial<AgentsSlice> | undefined;
  if (!d || typeof d.digest !== "string" || !Array.isArray(d.agents)) return slice;
  return { digest: d.digest, agents: d.agents } satisfies AgentsSlice;
}

/** The configured set as recorded, and its digest. */
export function agentsRecord(agents: readonly A2aAgent[]): AgentsSlice {
  const list = agents.map((a) => ({ name: a.name, effect: a.effect }));
  return { digest: sha256Hex(canonical(list)), agents: list };
}

/** Before a turn's first model call: a draft recording the agent set when it differs from the last recorded. */
export async function recordAgents(port: TurnPort): Promise<EventDraft[]> {
  const config = a2aConfigOf(port.env);
  if (!config.ok) return [];
  const last = port.slice as AgentsSlice | undefined;
  if (!last && config.agents.length === 0) return [];
  const record = agentsRecord(config.agents);
  if (record.digest === last?.digest) return [];
  return [
    { author: "runtime", modelVisibility: "hidden", ...port.base, actions: { stateDelta: { a2aAgents: record } } },
  ];
}

/** The tools of the recorded agents (what `context` shows). */
export function agentTools(slice: unknown): ToolDefinition<unknown>[] {
  const s = slice as AgentsSlice | undefined;
  return (s?.agents ?? []).map((a) => sendTool(a) as ToolDefinition<unknown>);
}

/** The configured agents' tools as `GET /v1/tools` lists them: source `a2a:<name>`, the agent's effect. */
export function listedAgentTools(env: Record<string, unknown>): ToolInfo[] {
  const config = a2aConfigOf(env);
  if (!config.ok) return [];
  const tools = config.agents.map((a) => sendTool({ name: a.name, effect: a.effect }));
  const specs = toolSpecs(tools as ToolDefinition<unknown>[]);
  return tools.map((t, i) => ({
    name: t.name,
    source: t.source ?? "builtin",
    effect: config.agents[i]!.effect,
    description: t.description,
    inputSchema: specs[i]!.parameters,
  }));
}

function configured(name: string, env: Record<string, unknown> | undefined): A2aAgent | null {
  const config = a2aConfigOf(env ?? {});
  return config.ok ? (config.agents.find((a) => a.name === name) ?? null) : null;
}

const unavailable = (name: string): ToolResult => ({
  status: "error",
  response: { code: "agent_unavailable", message: `the A2A agent ${name} is no longer configured` },
});

function sendTool(recorded: RecordedAgent): ToolDefinition<z.infer<typeof SendArgs>> {
  const { name } = recorded;
  const remote: RemoteTaskPort = {
    async poll(taskId, ctx) {
      const agent = configured(name, ctx.env);
      if (!agent) throw new Error(`the A2A agent ${name} is no longer configured`);
      const client = await clientFor(agent, ctx);
      return taskStatus(await client.getTask({ tenant: "", id: taskId, historyLength: 0 }, { signal: ctx.signal }));
    },
    async cancel(taskId, ctx) {
      const agent = configured(name, ctx.env);
      if (!agent) return null;
      const client = await clientFor(agent, ctx);
      return taskStatus(
        await client.cancelTask({ tenant: "", id: taskId, metadata: undefined }, { signal: ctx.signal }),
      );
    },
    async reply(taskId, text, messageId, ctx) {
      const agent = configured(name, ctx.env);
      if (!agent) return null;
      const client = await clientFor(agent, ctx);
      const result = await sendText(client, { messageId, text, taskId, notify: null, signal: ctx.signal });
      return isTask(result) ? taskStatus(result) : { taskId, state: "working" };
    },
  };
  return {
    name: `${name}__send`,
    source: `a2a:${name}`,
    description: `Send a message to the remote agent "${name}" (A2A) and wait for its answer; the run waits until the agent's task ends.`,
    input: SendArgs,
    effect: () => recorded.effect,
    remote,
    run: async (args, ctx) => {
      const agent = configured(name, ctx.env);
      if (!agent) return unavailable(name);
      return send(agent, args.text, ctx);
    },
  };
}

/** The send: a direct answer, a finished task's outcome, or the task the call then waits for. */
async function send(agent: A2aAgent, text: string, ctx: ToolContext): Promise<ToolResult> {
  const client = await clientFor(agent, ctx);
  const base = typeof ctx.env?.PUBLIC_URL === "string" ? ctx.env.PUBLIC_URL.replace(/\/+$/, "") : "";
  const notify =
    base && ctx.remote
      ? { url: `${base}${NOTIFY_PATH}${ctx.remote.notifyToken}`, token: ctx.remote.notifyToken }
      : null;
  const result = await sendText(client, { messageId: ctx.idempotencyKey, text, notify, signal: ctx.signal });
  if (!isTask(result)) return { status: "ok", response: messageAnswer(result) };
  const status = taskStatus(result);
  const answer = remoteAnswer(status);
  if (answer) return answer;
  return { status: "ok", response: null, remoteTask: { taskId: result.id, target: { agent: agent.name } } };
}
