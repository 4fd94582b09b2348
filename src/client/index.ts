/**
 * A small typed client for highwater's HTTP API (docs/API.md §2) and WebSocket (§4), for browsers,
 * Node 20+ and tests. It uses only `fetch`, `URL`, timers and a WebSocket implementation, so it
 * bundles for the browser console as is.
 */
import type {
  Accepted,
  ContextView,
  Event,
  EventsPage,
  FilesPage,
  RecordTopic,
  RecordView,
  Run,
  Session,
  SessionPatch,
  Ticket,
  TranscriptPage,
  Trigger,
  VerifyResult,
} from "../contract";
import { openConnection } from "./connection";
import { queryString, sessionPath } from "./http";
import { PrincipalClient } from "./principal";
import { type Connection, type ConnectOptions, newIdempotencyKey } from "./types";

export type { Event } from "../contract/event";
export type { ServerFrame } from "../contract/frames";
export type * from "../contract/memory";
export type * from "../contract/reads";
export type * from "../contract/records";
export type * from "../contract/session";
export type * from "../contract/trace";
export type * from "../contract/transcript";
export type * from "../contract/work";
export * from "./types";
/** The page size of catch-up: a full page of it is immutable and cacheable (docs/API.md §7.21). */
export const HISTORY_PAGE = 500;

/** A typed client for one Worker and one token: the principal-wide calls (`./principal.ts`), a session's, its socket. */
export class HighwaterClient extends PrincipalClient {
  // ---- HTTP ------------------------------------------------------------------------------

  getSession(id: string): Promise<Session> {
    return this.json("GET", sessionPath(id));
  }

  patchSession(id: string, patch: SessionPatch): Promise<Session> {
    return this.json("PATCH", sessionPath(id), patch);
  }

  /**
   * Sends a message over HTTP; a repeated `idempotencyKey` (shared with the socket) returns the
   * first answer. A key is always sent (a fresh one when none is given): an upload cut off
   * mid-body can still commit, and only the key makes retrying it safe.
   */
  sendMessage(id: string, text: string, idempotencyKey: string = newIdempotencyKey()): Promise<Accepted> {
    return this.json("POST", `${sessionPath(id)}/messages`, { text, idempotencyKey });
  }

  stop(id: string): Promise<Session> {
    return this.json("POST", `${sessionPath(id)}/stop`);
  }

  /**
   * Decides a pending approval. Pass the `argsDigest` of the arguments you showed (from
   * `pendingApprovals[]`): the server answers 409 if the call's arguments are not those.
   */
  decideApproval(
    id: string,
    requestId: string,
    decision: "approve" | "reject",
    opts: { reason?: string; argsDigest?: string } = {},
  ): Promise<Session> {
    return this.json("POST", `${sessionPath(id)}/approvals/${encodeURIComponent(requestId)}`, { decision, ...opts });
  }

  /**
   * Answers a question a tool's server asked during a call (docs/API.md#questions-from-mcp-servers):
   * 400 when the content does not fit the question's schema, 409 when it was answered or closed.
   */
  answerInput(
    id: string,
    requestId: string,
    answer: { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> },
  ): Promise<Session> {
    return this.json("POST", `${sessionPath(id)}/inputs/${encodeURIComponent(requestId)}`, answer);
  }

  /** Dismisses the recovery notice at `atSeq` for every client (409 if it is not the current one). */
  dismissRecoveryNotice(id: string, atSeq: number): Promise<Session> {
    return this.json("POST", `${sessionPath(id)}/recovery-notice/dismiss`, { atSeq });
  }

  /** One page of events with `seq > after`, ascending. */
  events(id: string, after = 0, limit = 500): Promise<EventsPage> {
    return this.json("GET", `${sessionPath(id)}/events${queryString({ after, limit })}`);
  }

  /**
   * Every event after `after`, page by page, until a page with fewer events than asked (the
   * head: caught up, docs/API.md §7.21). The first page is shortened so that every later one
   * starts at a multiple of `limit`: any reader of the session asks for the same full pages,
   * which the edge answers from its cache (§7.22), and only the last, partial one is live.
   */
  async *history(id: string, after = 0, limit = HISTORY_PAGE): AsyncGenerator<Event[]> {
    let cursor = after;
    for (;;) {
      const size = limit - (cursor % limit);
      const page = await this.events(id, cursor, size);
      if (page.events.length > 0) {
        yield page.events;
        cursor = page.events.at(-1)!.seq;
      }
      if (page.events.length < size) return;
    }
  }

  /** One page of the transcript: items after the `after` seq (`next` when more follow). */
  transcript(id: string, page: { after?: number; limit?: number } = {}): Promise<TranscriptPage> {
    return this.json("GET", `${sessionPath(id)}/transcript${queryString(page)}`);
  }

  context(id: string): Promise<ContextView> {
    return this.json("GET", `${sessionPath(id)}/context`);
  }

  verify(id: string): Promise<VerifyResult> {
    return this.json("GET", `${sessionPath(id)}/verify`);
  }

  /** The whole log as NDJSON, one event a line, exactly as stored (and hashed). */
  async exportNdjson(id: string): Promise<string> {
    return (await this.request("GET", `${sessionPath(id)}/export`)).text();
  }

  /** One page of the workspace listing, by path (`next` when more follow). */
  files(id: string, page: { after?: string; limit?: number } = {}): Promise<FilesPage> {
    return this.json("GET", `${sessionPath(id)}/files${queryString(page)}`);
  }

  /** A workspace file's content. */
  async file(id: string, path: string): Promise<string> {
    const encoded = path.split("/").map(encodeURIComponent).join("/");
    return (await this.request("GET", `${sessionPath(id)}/files/${encoded}`)).text();
  }

  /** Stored archive bytes (docs/API.md §2), or the range `offset`..`offset+limit`. */
  async archive(id: string, sha256: string, range: { offset?: number; limit?: number } = {}): Promise<string> {
    return (await this.request("GET", `${sessionPath(id)}/archive/${sha256}${queryString(range)}`)).text();
  }

  /** External input (docs/API.md §6): opens a turn or joins the open one. */
  inbox(id: string, input: { source: string; text: string; correlationId?: string }): Promise<Accepted> {
    return this.json("POST", `${sessionPath(id)}/inbox`, input);
  }

  fork(id: string, throughSeq: number): Promise<Session> {
    return this.json("POST", `${sessionPath(id)}/fork`, { throughSeq });
  }

  createTrigger(id: string, trigger: Omit<Trigger, "nextAt">): Promise<Trigger> {
    return this.json("POST", `${sessionPath(id)}/triggers`, trigger);
  }

  /** One page of the triggers, by name (docs/API.md#triggers): pass the page's `next` as `after` for the following one. */
  triggers(
    id: string,
    query: { limit?: number; after?: string } = {},
  ): Promise<{ triggers: Trigger[]; next?: string }> {
    return this.json("GET", `${sessionPath(id)}/triggers${queryString(query)}`);
  }

  /**
   * Removes a trigger by any name it was stored under: the name travels in the query, so one
   * that a path would normalise away (`.`, `..`) is reached too (docs/API.md §7.34).
   */
  async deleteTrigger(id: string, name: string): Promise<void> {
    await this.request("DELETE", `${sessionPath(id)}/triggers${queryString({ name })}`);
  }

  /** One page of the runs, newest first (docs/API.md#runs): pass the page's `next` as `before` for older ones. */
  runs(id: string, query: { limit?: number; before?: string } = {}): Promise<{ runs: Run[]; next?: string }> {
    return this.json("GET", `${sessionPath(id)}/runs${queryString(query)}`);
  }

  /** Releases a wait (`wait_for` or a step budget) naming its current `waitId`; 409 if stale. */
  resume(id: string, runId: string, input: { waitId: string; text?: string }): Promise<{ seq: number }> {
    return this.json("POST", `${sessionPath(id)}/runs/${encodeURIComponent(runId)}/resume`, input);
  }

  /** Work records (docs/API.md §6): the topics, one topic with its uncovered entries, a revision, an entry. */
  records(id: string): Promise<{ topics: RecordTopic[] }> {
    return this.json("GET", `${sessionPath(id)}/records`);
  }

  record(id: string, topic: string): Promise<RecordView> {
    return this.json("GET", `${sessionPath(id)}/records/${encodeURIComponent(topic)}`);
  }

  /** A new revision of a topic's summary; 409 if `expectedRevision` is stale. */
  putRecord(
    id: string,
    topic: string,
    body: { content: string; expectedRevision: number; coversEntry?: number },
  ): Promise<{ topic: string; revision: number }> {
    return this.json("PUT", `${sessionPath(id)}/records/${encodeURIComponent(topic)}`, body);
  }

  appendRecordEntry(id: string, topic: string, body: { text: string; refs?: number[] }): Promise<unknown> {
    return this.json("POST", `${sessionPath(id)}/records/${encodeURIComponent(topic)}/entries`, body);
  }

  /** A turn's trace as OTLP/JSON (default: the last closed turn), as text to save as is. */
  async trace(id: string, turnId?: string): Promise<string> {
    const q = turnId ? `?turnId=${encodeURIComponent(turnId)}` : "";
    return (await this.request("GET", `${sessionPath(id)}/trace${q}`)).text();
  }

  /** A single-use, 60 s ticket for this session's WebSocket (for browsers). */
  createTicket(id: string): Promise<Ticket> {
    return this.json("POST", `${sessionPath(id)}/tickets`);
  }

  // ---- WebSocket -------------------------------------------------------------------------

  /**
   * Opens the session's WebSocket and keeps it open. Reconnecting (backoff, one fresh URL per
   * attempt) is partysocket's; the URL provider asks for `after=<last seq delivered>` and, for
   * browsers, a fresh single-use ticket. The seq logic is ours: `onFrame` sees each event
   * exactly once and in order across reconnects (a replayed event at or below the cursor is
   * dropped; a gap reconnects from the cursor). The client pings; a socket that hears nothing,
   * not even a pong, for `silenceMs` is dead however open it looks, and is replaced.
   */
  connect(sessionId: string, options: ConnectOptions): Connection {
    return openConnection(
      {
        baseUrl: this.baseUrl,
        token: this.token,
        WebSocket: this.WebSocket,
        createTicket: (id) => this.createTicket(id),
        history: (id, after) => this.history(id, after),
      },
      sessionId,
      options,
    );
  }
}
