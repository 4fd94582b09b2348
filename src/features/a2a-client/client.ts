/**
 * One configured A2A agent through `@a2a-js/sdk`'s client (A2A v1.0, JSON-RPC binding:
 * `SendMessage`, `GetTask`, `CancelTask`), over a fetch bounded to the agent card's origin
 * (docs/API.md#a2a-agents): configuring the agent allows that origin for this client only, no
 * redirect is followed, an answer is cut at 4 MiB, and the configured headers (their
 * `{{secret:NAME}}` filled in) go with every request.
 */
import { type AgentCard, Role, type Task } from "@a2a-js/sdk";
import { type Client, ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { substituteSecrets } from "../../tools/secrets";
import type { ToolContext } from "../../tools/types";
import type { A2aAgent } from "./config";

/** The most an agent's answer (its card, a task) may take. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** An agent card is read again after this long. */
const CARD_TTL_MS = 5 * 60_000;

const cards = new Map<string, { card: AgentCard; at: number }>();

/** The agent's headers with each `{{secret:NAME}}` filled in from the Worker's secrets (read through `ctx.secret`, so redacted). */
function headersOf(agent: A2aAgent, ctx: ToolContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(agent.headers)) {
    const filled = substituteSecrets(value, (n) => ctx.secret?.(n));
    if (!filled.ok) throw new Error(`A2A agent ${agent.name}: the secret ${filled.name} is not set`);
    out[name] = filled.text;
  }
  return out;
}

/** Fetch for one agent: its card's origin only, no redirects, answers cut at the byte limit. */
export function agentFetch(agent: A2aAgent, ctx: ToolContext): typeof fetch {
  const origin = new URL(agent.url).origin;
  const headers = headersOf(agent, ctx);
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) throw new Error(`A2A agent ${agent.name}: a request to another origin than its card's`);
    const merged = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) merged.set(k, v);
    const res = await ctx.fetch(url.href, { ...init, headers: merged, redirect: "manual", signal: ctx.signal });
    if (!res.body) return res;
    return new Response(counted(res.body), { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof fetch;
}

function counted(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctl) {
        seen += chunk.byteLength;
        if (seen > MAX_ANSWER_BYTES) ctl.error(new Error(`the agent's answer exceeds ${MAX_ANSWER_BYTES} bytes`));
        else ctl.enqueue(chunk);
      },
    }),
  );
}

/** The SDK's client for `agent`, from its card (read once per 5 minutes per isolate). */
export async function clientFor(agent: A2aAgent, ctx: ToolContext): Promise<Client> {
  const fetchImpl = agentFetch(agent, ctx);
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  const cached = cards.get(agent.url);
  const now = Date.now();
  if (cached && now - cached.at < CARD_TTL_MS) return factory.createFromAgentCard(cached.card);
  const card = await new DefaultAgentCardResolver({ fetchImpl }).resolve(agent.url, "");
  cards.set(agent.url, { card, at: now });
  return factory.createFromAgentCard(card);
}

/**
 * `SendMessage` of `text` under `messageId` (the call's idempotency key), returning at once with
 * the task (`returnImmediately`); `notifyUrl`: where the agent may push the task's updates.
 */
export async function sendText(
  client: Client,
  input: {
    messageId: string;
    text: string;
    notify: { url: string; token: string } | null;
    signal: AbortSignal;
    /** An answer to a task that asked for input: the message goes to that task (and its context). */
    taskId?: string;
  },
): Promise<Awaited<ReturnType<Client["sendMessage"]>>> {
  return client.sendMessage(
    {
      tenant: "",
      message: {
        messageId: input.messageId,
        contextId: "",
        taskId: input.taskId ?? "",
        role: Role.ROLE_USER,
        parts: [
          { content: { $case: "text", value: input.text }, metadata: undefined, filename: "", mediaType: "text/plain" },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: {
        acceptedOutputModes: ["text/plain", "application/json"],
        taskPushNotificationConfig: input.notify
          ? {
              tenant: "",
              id: "",
              taskId: "",
              url: input.notify.url,
              token: input.notify.token,
              authentication: undefined,
            }
          : undefined,
        returnImmediately: true,
      },
      metadata: undefined,
    },
    { signal: input.signal },
  );
}

export function isTask(result: unknown): result is Task {
  return !!result && typeof result === "object" && "status" in result && "id" in result;
}
