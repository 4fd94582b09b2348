import { z } from "zod";
import { ApiError, MAX_TEXT_BYTES, type Result, unwrap, utf8Bytes } from "../../contract";
import { argsDigestOf } from "../../runtime/drafts";
import type { ChatEventsPage } from "../../session/chat-reads";
import type { ChatTurn } from "../../session/commands";
import { readJson } from "../body";
import { resource, sessionStub } from "../routing";
import { parseInput, queryInt } from "../schemas";
import { parsedBody } from "../turns";
import { callerOf, type EdgeApp, type EdgeContext } from "../types";
import { assistantMessageId, UIMessagesFold } from "./messages";
import { ChatParts } from "./parts";
import { chatSessionId, parseChatRequest } from "./request";
import { streamTurn } from "./stream";

/** The JSON bytes of one `GET /messages` page at most (docs/API.md#chat-ai-sdk-ui-message-stream). */
export const MESSAGES_PAGE_BYTES = 4 * 1024 * 1024;
/** `GET /messages?limit=`: how many of the newest UI messages (docs/API.md#chat-ai-sdk-ui-message-stream). */
const MessagesQuery = z.strictObject({
  limit: queryInt(1, 1000).optional(),
  before: z.string().min(1).max(200).optional(),
});
const MESSAGES_DEFAULT = 100;

/** The stub of a chat's session, or 404 (the object then checks the owner). */
function chatStub(c: EdgeContext, id: string) {
  const stub = sessionStub(c.env, id);
  if (!stub) throw new ApiError("not_found", "session not found");
  return stub;
}

/**
 * The AI SDK's chat protocol (docs/API.md#chat-ai-sdk-ui-message-stream): `useChat` with
 * `DefaultChatTransport({ api: "<origin>/v1/chat" })` works unmodified.
 */
export function chatRoutes(app: EdgeApp): void {
  resource(app, "/v1/chat", {
    POST: async (c) => {
      const raw = await readJson(c, undefined);
      const id = chatSessionId(raw);
      const stub = chatStub(c, id);
      const caller = callerOf(c);
      const before = unwrap((await stub.chatTurn(caller)) as Result<ChatTurn>);
      const action = parseChatRequest(raw);
      if (action.kind === "message") {
        if (utf8Bytes(action.text) > MAX_TEXT_BYTES)
          throw new ApiError("payload_too_large", `text over ${MAX_TEXT_BYTES} bytes`);
        // The transport's retry of the same message appends nothing twice.
        const posted = unwrap(
          await stub.postMessage(caller, {
            text: action.text,
            idempotencyKey: `ui:${action.messageId}`,
            source: "http",
          }),
        );
        const fold = new ChatParts({ turnId: posted.turnId, messageId: assistantMessageId(posted.seq) });
        return streamTurn(stub, caller, posted.seq, fold);
      }
      // Every answer is checked against the arguments it was shown before any is decided.
      for (const answer of action.approvals) {
        const pending = before.session.pendingApprovals.find((p) => p.requestId === answer.approvalId);
        if (pending && pending.argsDigest !== argsDigestOf(answer.input))
          throw new ApiError("conflict", "argsDigest does not match the pending call's arguments");
      }
      // From just before the decisions: a rejection's `rejected` answer commits with its decision.
      const after = before.session.highWater;
      for (const answer of action.approvals) {
        const decided = (await stub.decide(caller, answer.approvalId, {
          ok: true,
          value: {
            decision: answer.approved ? "approve" : "reject",
            ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
            argsDigest: argsDigestOf(answer.input),
          },
        })) as Result<unknown>;
        // A retried request finds its approval decided: it streams on from where the turn is.
        if (!decided.ok && decided.error.code === "conflict" && decided.error.message === "approval already decided")
          continue;
        unwrap(decided);
      }
      const turn = unwrap((await stub.chatTurn(caller)) as Result<ChatTurn>).turn ?? before.turn;
      if (!turn) throw new ApiError("conflict", "the approval's turn is closed");
      // A message that joined the turn after the call was made has its own answer: the client's ends
      // before it. Read from before the decisions, which the next model call may already follow.
      const asked = before.turn ?? turn;
      const joined = asked.answerSeq > asked.callSeq;
      const fold = new ChatParts({ turnId: turn.turnId, knownCalls: action.toolCallIds, joined });
      return streamTurn(stub, caller, after, fold);
    },
  });

  resource(app, "/v1/chat/:id/stream", {
    GET: async (c) => {
      const stub = chatStub(c, c.req.param("id") ?? "");
      const caller = callerOf(c);
      const { session, turn } = unwrap((await stub.chatTurn(caller)) as Result<ChatTurn>);
      if (!turn || (session.status !== "running" && session.status !== "recovering")) return c.body(null, 204);
      // The answer in progress is the one after the turn's last user message, as `GET /messages` has it.
      const fold = new ChatParts({ turnId: turn.turnId, messageId: assistantMessageId(turn.answerSeq) });
      return streamTurn(stub, caller, turn.answerSeq, fold);
    },
  });

  resource(app, "/v1/chat/:id/messages", {
    GET: async (c) => {
      const stub = chatStub(c, c.req.param("id") ?? "");
      const caller = callerOf(c);
      // The object checks the caller (404) before the query (400).
      const query = await parsedBody(() => {
        const q = parseInput(MessagesQuery, c.req.query(), "query");
        return { limit: q.limit ?? MESSAGES_DEFAULT, ...(q.before !== undefined ? { before: q.before } : {}) };
      });
      // Found through an index: only the events of those messages are read, a page at a time,
      // as the model saw them, and only the newest messages that fit the page are held.
      const window = unwrap(await stub.chatWindow(caller, query));
      // `query` parsed: a failed one was answered 400 by `chatWindow`.
      const limit = query.ok ? query.value.limit : MESSAGES_DEFAULT;
      const fold = new UIMessagesFold({ messages: limit, bytes: MESSAGES_PAGE_BYTES });
      for (let after = window.after; ; ) {
        const page = unwrap((await stub.chatEvents(caller, after, window.through)) as Result<ChatEventsPage>);
        fold.add(page.events);
        if (page.atHead || page.events.length === 0) break;
        after = page.events.at(-1)!.seq;
      }
      const first = fold.messages[0];
      // A page the byte bound ended early says where the next (older) page starts.
      if (fold.cut && first) c.header("x-highwater-before", first.id);
      return c.json(fold.messages);
    },
  });
}
