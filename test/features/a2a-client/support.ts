/**
 * What the A2A client's e2e tests share: a fake agent (`@a2a-js/sdk`'s server), a scripted model
 * that calls `helper__send` once and then answers with what it got, and `wrangler dev` with
 * `A2A_AGENTS` pointing at the agent.
 */
import { rmSync } from "node:fs";
import { limiter } from "../../e2e/crash/run-case";
import { type Api, createApi, type Event } from "../../e2e/harness/api";
import { type FakeOpenAI, scriptedAgent, startFakeOpenAI } from "../../e2e/harness/fake-openai";
import {
  type FailpointSink,
  freePort,
  makePersistDir,
  startFailpointSink,
  startWrangler,
  type Wrangler,
} from "../../e2e/harness/wrangler";
import { type FakeA2aAgent, startFakeA2aAgent } from "../../fakes/a2a-agent";

export const TOKEN = "a2a-client-token";

export type Stack = {
  agent: FakeA2aAgent;
  model: FakeOpenAI;
  worker: Wrangler;
  api: Api;
  sink: FailpointSink | null;
  vars: Record<string, string>;
  /** Restart on the same persist dir without the failpoint. */
  restart(): Promise<void>;
  close(): Promise<void>;
};

export async function startStack(
  opts: {
    effect?: "write" | "idempotent";
    failpoint?: string;
    /** `PUBLIC_URL` is set (sends carry a notification URL); the agent pushes only with `agentPushes`. */
    push?: boolean;
    agentPushes?: boolean;
    uncancelable?: boolean;
    extraVars?: Record<string, string>;
  } = {},
): Promise<Stack> {
  const cleanups: (() => unknown)[] = [];
  const agent = await startFakeA2aAgent({ push: opts.agentPushes ?? false, uncancelable: opts.uncancelable ?? false });
  cleanups.push(() => agent.close());
  const model = await startFakeOpenAI(
    scriptedAgent((_step, ctx) => {
      // One call per turn: once any tool result is in the conversation, answer with it (a message
      // that joined the turn while it waited must not start a second call).
      const result = ctx.body.messages.filter((m) => m.role === "tool").at(-1);
      return result
        ? { text: `the helper said: ${String(result.content ?? "")}` }
        : { toolCalls: [{ name: "helper__send", args: { text: `ask: ${ctx.lastUserText}` } }] };
    }),
  );
  cleanups.push(() => model.close());
  const sink = opts.failpoint ? await startFailpointSink() : null;
  if (sink) cleanups.push(() => sink.close());
  const persistTo = makePersistDir("hw-a2a-");
  cleanups.push(() => rmSync(persistTo, { recursive: true, force: true }));
  // Push notifications need the Worker's public URL before it starts: a chosen port.
  const port = opts.push && opts.agentPushes ? await freePort() : undefined;
  const vars: Record<string, string> = {
    API_TOKENS: TOKEN,
    MODEL_PROVIDER: "openai",
    MODEL_BASE_URL: model.url,
    MODEL_API_KEY: "x",
    MODEL_NAME: "fake-model",
    HTTP_TOOL_ALLOWED_HOSTS: "127.0.0.1:*",
    A2A_AGENTS: JSON.stringify([{ name: "helper", url: agent.cardUrl, effect: opts.effect ?? "write" }]),
    ...(opts.push ? { PUBLIC_URL: port ? `http://127.0.0.1:${port}` : "https://hw.invalid" } : {}),
    ...opts.extraVars,
  };
  let worker = await startWrangler({
    persistTo,
    ...(port ? { port } : {}),
    vars: { ...vars, ...(opts.failpoint && sink ? { HW_FAILPOINT: opts.failpoint, HW_FAILPOINT_URL: sink.url } : {}) },
  });
  const stack: Stack = {
    agent,
    model,
    worker,
    api: createApi(worker.url, TOKEN),
    sink,
    vars,
    async restart() {
      await stack.worker.kill9();
      worker = await startWrangler({
        ...stack.worker.options,
        vars,
        ...(port ? { port } : { port: undefined }),
        inspectorPort: undefined,
      });
      stack.worker = worker;
      stack.api = createApi(worker.url, TOKEN);
    },
    async close() {
      await stack.worker.stop().catch(() => undefined);
      for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    },
  };
  return stack;
}

export const responseOf = (events: Event[], callId?: string) =>
  events.find(
    (e) => e.content?.type === "functionResponse" && (!callId || (e.content as { callId: string }).callId === callId),
  );

export const remoteTaskOf = (events: Event[]) =>
  events.find((e) => e.actions?.stateDelta?.remoteTask)?.actions?.stateDelta?.remoteTask as
    | { callId: string; agent: string; taskId: string; waitId: string; notify?: string }
    | undefined;

/** `Session.wait` (docs/API.md §7.27), newer than the harness's `Session` type. */
export type SessionWait = { runId: string; waitId: string; kind: string; reason?: string } | null;
export const waitOf = (s: unknown): SessionWait => (s as { wait?: SessionWait }).wait ?? null;

/**
 * A case body run on a stack of its own (`startStack`), closed whatever its outcome, at most
 * `concurrency` cases at a time in the file that asks for it.
 */
export function stackCases(concurrency: number) {
  const slot = limiter(concurrency);
  return (opts: Parameters<typeof startStack>[0], body: (stack: Stack) => Promise<void>) => () =>
    slot(async () => {
      const stack = await startStack(opts);
      try {
        await body(stack);
      } finally {
        await stack.close();
      }
    });
}
