/**
 * The channel object's calls into its sessions (docs/API.md#channels), each as the channel's
 * principal (`actAs`), exactly as the HTTP routes make them: a thread's session is found or
 * created (named by the channel and thread, so a retry finds it) and bound to the thread.
 */
import { ApiError, type Result, type Session } from "../../contract";
import { principalOf } from "../../http/auth";
import { createSessionFor } from "../../http/sessions";
import type { Channel } from "./config";
import type { ThreadRef } from "./platform";

export const FEATURE = "channels";

type Stub = DurableObjectStub<import("../../session").SessionObject>;

export type SessionsPort = {
  /** The thread's session, created and bound on the first call. */
  open(thread: ThreadRef, title: string): Promise<string>;
  post(sessionId: string, text: string, key: string, source: string): Promise<Result<unknown>>;
  decide(
    sessionId: string,
    requestId: string,
    decision: "approve" | "reject",
    argsDigest: string,
  ): Promise<Result<Session>>;
  stop(sessionId: string): Promise<Result<Session>>;
  get(sessionId: string): Promise<Result<Session>>;
  context(sessionId: string): Promise<Result<unknown>>;
};

/** The public link of a thread, where the platform has one the Worker can build. */
export function threadLink(channel: Channel, thread: ThreadRef): string | null {
  if (channel.kind === "slack" && thread.root) return `slack://channel?id=${thread.chat}&message=${thread.root}`;
  return null;
}

export function sessionsPort(env: Env, channel: Channel): SessionsPort {
  const caller = { principal: principalOf(channel.actAs) };
  const stub = (id: string): Stub => env.SESSIONS.get(env.SESSIONS.idFromString(id));
  return {
    async open(thread, title) {
      const id = env.SESSIONS.idFromName(`channel:${channel.name}:${thread.id}`);
      const s = env.SESSIONS.get(id);
      if (!(await s.getSession(caller)).ok) {
        try {
          await createSessionFor(env, caller.principal, { title, approvals: channel.approvals }, id);
        } catch (err) {
          // Created by an earlier try whose answer was lost: it is there, registered.
          if (!(err instanceof ApiError && err.code === "conflict")) throw err;
        }
      }
      const bound = await s.call(caller, FEATURE, "bind", {
        name: channel.name,
        kind: channel.kind,
        thread: thread.id,
        link: threadLink(channel, thread),
        ref: thread,
      });
      if (!bound.ok) throw new ApiError(bound.error.code, bound.error.message);
      return id.toString();
    },
    post: (id, text, key, source) => stub(id).postMessage(caller, { text, idempotencyKey: key, source }),
    decide: (id, requestId, decision, argsDigest) =>
      stub(id).decide(caller, requestId, { ok: true, value: { decision, argsDigest } }),
    stop: (id) => stub(id).stop(caller),
    get: (id) => stub(id).getSession(caller),
    context: (id) => stub(id).context(caller) as Promise<Result<unknown>>,
  };
}
