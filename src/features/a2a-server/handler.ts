/**
 * The A2A request handler (docs/API.md#a2a-server): the SDK's `A2ARequestHandler` over a `Port`
 * (the same directory and session-object calls the HTTP routes make, for one principal). It keeps
 * no task store of its own: every task is read from its session's log. A refused call throws the
 * protocol's error and appends nothing.
 */
import {
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type Message,
  Role,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import { ApiError, MAX_TEXT_BYTES } from "../../contract";
import type { PushConfig } from "./push-store";
import { isTerminal, parseTaskId, type TaskRef, taskIdOf, taskOf, updatesOf } from "./task";
import type { TurnView } from "./turn-read";

/** What the handler acts through, for the caller's principal; each throws `ApiError` when refused. */
export type Port = {
  /** The session of `contextId` (absent: a new one, named by the message so a retry finds it). */
  context(contextId: string | undefined, messageId: string): Promise<string>;
  post(sessionId: string, text: string, messageId: string): Promise<TaskRef>;
  read(ref: TaskRef, after?: number): Promise<TurnView>;
  stop(sessionId: string): Promise<void>;
  pushSet(ref: TaskRef, config: PushConfig): Promise<PushConfig>;
  pushGet(ref: TaskRef, id: string): Promise<PushConfig>;
  pushList(ref: TaskRef): Promise<PushConfig[]>;
  pushDelete(ref: TaskRef, id: string): Promise<void>;
  /** Waits `ms` (a stream's and a blocking send's poll). */
  sleep(ms: number): Promise<void>;
  now(): number;
};

export type HandlerOptions = {
  card: AgentCard;
  /** How long a blocking `SendMessage` waits for the task to finish or ask for input. */
  blockMs: number;
  /** How often a stream reads the log. */
  pollMs: number;
  /** How long one stream stays open; a client then resubscribes. */
  streamMs: number;
  /** Whether a push URL is allowed (`A2A_PUSH_ALLOWED_HOSTS`). */
  pushAllowed(url: URL): boolean;
};

/** An idempotency key is at most 200 characters, and the `a2a:` prefix takes 4. */
const MESSAGE_ID_MAX = 196;

/** The text of a user message: its text parts, joined; anything else is refused. */
export function textOf(message: Message | undefined): { messageId: string; text: string } {
  if (!message) throw new RequestMalformedError("message: required");
  const messageId = message.messageId;
  if (!messageId || messageId.length > MESSAGE_ID_MAX)
    throw new RequestMalformedError(`message.messageId: a string of 1–${MESSAGE_ID_MAX} characters`);
  if (message.role !== Role.ROLE_USER) throw new RequestMalformedError("message.role: must be ROLE_USER");
  const texts: string[] = [];
  for (const [i, part] of (message.parts ?? []).entries()) {
    if (part.content?.$case !== "text")
      throw new ContentTypeNotSupportedError(`message.parts[${i}]: only text parts are accepted`);
    texts.push(part.content.value);
  }
  const text = texts.join("\n\n");
  if (text.trim() === "") throw new RequestMalformedError("message.parts: at least one non-empty text part");
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_TEXT_BYTES)
    throw new RequestMalformedError(`message text: ${bytes} UTF-8 bytes, over the limit of ${MAX_TEXT_BYTES}`);
  return { messageId, text };
}

/** A task id as the caller gave it: a missing one is malformed, one this server never minted is unknown. */
function refOf(id: string): TaskRef {
  if (!id) throw new RequestMalformedError("id: a task id is required");
  const ref = parseTaskId(id);
  if (!ref) throw new TaskNotFoundError(`task ${id} not found`);
  return ref;
}

/** The contract's refusals as the protocol's errors (docs/API.md#a2a-server). */
async function mapped<T>(fn: () => Promise<T>, taskId?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === "not_found") throw new TaskNotFoundError(taskId ? `task ${taskId} not found` : err.message);
    if (err.code === "bad_request" || err.code === "payload_too_large") throw new RequestMalformedError(err.message);
    if (err.code === "conflict") throw new UnsupportedOperationError(err.message);
    throw err;
  }
}

export class HighwaterA2AHandler implements A2ARequestHandler {
  constructor(
    private readonly port: Port,
    private readonly options: HandlerOptions,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.options.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError("this agent has no extended card");
  }

  /** Appends the message (once per `messageId`) and names its task. */
  async #start(params: SendMessageRequest): Promise<TaskRef> {
    const { messageId, text } = textOf(params.message);
    const given = params.message?.taskId;
    const contextId = params.message?.contextId || undefined;
    const pushConfig = params.configuration?.taskPushNotificationConfig;
    if (pushConfig) this.#checkUrl(pushConfig.url);
    let ref: TaskRef;
    if (given) {
      const task = refOf(given);
      if (contextId && contextId !== task.sessionId)
        throw new RequestMalformedError("message.contextId: not the context of message.taskId");
      const view = await mapped(() => this.port.read(task), given);
      if (isTerminal(view.state))
        throw new UnsupportedOperationError(`task ${given} is ${view.state}: send without taskId to start another`);
      const posted = await mapped(() => this.port.post(task.sessionId, text, messageId));
      // The turn may have closed in between: the message then opened a new one, a task of its own.
      ref = posted.turnId === task.turnId ? task : posted;
    } else {
      const sessionId = await mapped(() => this.port.context(contextId, messageId), contextId);
      ref = await mapped(() => this.port.post(sessionId, text, messageId));
    }
    if (pushConfig) await mapped(() => this.port.pushSet(ref, this.#config(ref, pushConfig)));
    return ref;
  }

  async sendMessage(params: SendMessageRequest): Promise<Message | Task> {
    const ref = await this.#start(params);
    const history = params.configuration?.historyLength;
    let view = await this.port.read(ref);
    if (!params.configuration?.returnImmediately) {
      const until = this.port.now() + this.options.blockMs;
      while (view.state === "working" && this.port.now() < until) {
        await this.port.sleep(this.options.pollMs);
        view = await this.port.read(ref);
      }
    }
    return taskOf(ref, await this.#whole(ref, view), history);
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const ref = await this.#start(params);
    yield* this.#follow(ref);
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    const ref = refOf(params.id);
    const view = await mapped(() => this.port.read(ref), params.id);
    return taskOf(ref, await this.#whole(ref, view), params.historyLength);
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError("ListTasks is not supported: read a context's turns at GET /v1/sessions/:id");
  }

  /** A stop of the session's turn, when the task is that open turn. */
  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const ref = refOf(params.id);
    const view = await mapped(() => this.port.read(ref), params.id);
    if (isTerminal(view.state)) throw new TaskNotCancelableError(`task ${params.id} is ${view.state}`);
    await mapped(() => this.port.stop(ref.sessionId), params.id);
    return taskOf(ref, await this.#whole(ref, await this.port.read(ref)));
  }

  async *resubscribe(params: SubscribeToTaskRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const ref = refOf(params.id);
    const view = await mapped(() => this.port.read(ref), params.id);
    if (isTerminal(view.state))
      throw new UnsupportedOperationError(`task ${params.id} is ${view.state}: read it with GetTask`);
    yield* this.#follow(ref);
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    const ref = refOf(params.taskId);
    this.#checkUrl(params.url);
    const saved = await mapped(() => this.port.pushSet(ref, this.#config(ref, params)), params.taskId);
    return wireConfig(saved);
  }

  async getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    const ref = refOf(params.taskId);
    return wireConfig(await mapped(() => this.port.pushGet(ref, params.id || DEFAULT_CONFIG), params.taskId));
  }

  async listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const ref = refOf(params.taskId);
    const configs = await mapped(() => this.port.pushList(ref), params.taskId);
    return { configs: configs.map(wireConfig), nextPageToken: "" };
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    const ref = refOf(params.taskId);
    await mapped(() => this.port.pushDelete(ref, params.id || DEFAULT_CONFIG), params.taskId);
  }

  #checkUrl(raw: string): void {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new RequestMalformedError("url: not an absolute URL");
    }
    if (!this.options.pushAllowed(url))
      throw new RequestMalformedError(`url: ${url.host} is not allowed by A2A_PUSH_ALLOWED_HOSTS`);
  }

  #config(ref: TaskRef, c: TaskPushNotificationConfig): PushConfig {
    return {
      taskId: taskIdOf(ref),
      id: c.id || DEFAULT_CONFIG,
      url: c.url,
      token: c.token || null,
      authentication: c.authentication?.scheme
        ? { scheme: c.authentication.scheme, credentials: c.authentication.credentials }
        : null,
    };
  }

  /** A view with every message of the turn (a long turn is read page by page). */
  async #whole(ref: TaskRef, first: TurnView): Promise<TurnView> {
    let view = first;
    const messages = [...first.messages];
    while (view.more) {
      view = await this.port.read(ref, view.head);
      messages.push(...view.messages);
    }
    return { ...view, messages };
  }

  /**
   * The task, then what happens to it after the log's head at that moment: every event is sent
   * once, in log order, until the task is completed, failed or canceled (or the stream's time is
   * up: the client resubscribes and gets the task as it is then).
   */
  async *#follow(ref: TaskRef): AsyncGenerator<StreamResponse, void, undefined> {
    const first = await this.#whole(ref, await this.port.read(ref));
    yield { payload: { $case: "task", value: taskOf(ref, first) } };
    let state = first.state;
    let head = first.head;
    const until = this.port.now() + this.options.streamMs;
    while (!isTerminal(state) && this.port.now() < until) {
      await this.port.sleep(this.options.pollMs);
      const view = await this.port.read(ref, head);
      yield* updatesOf(ref, view, state);
      state = view.state;
      head = view.head;
    }
  }
}

/** A config named by no id is the task's default one. */
export const DEFAULT_CONFIG = "default";

function wireConfig(c: PushConfig): TaskPushNotificationConfig {
  return {
    tenant: "",
    id: c.id,
    taskId: c.taskId,
    url: c.url,
    token: c.token ?? "",
    authentication: c.authentication ?? undefined,
  };
}
