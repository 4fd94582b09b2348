/**
 * The frames a session's sockets are sent (docs/API.md#live-updates-over-a-websocket): each
 * committed event once and in order, from a live pump after every commit or a paged replay of a new
 * socket's backlog; a `session` frame when the summary changed; the streamed deltas.
 */
import type { EventStore } from "../log/store";
import type { Session } from "../projections/summary";

/**
 * What a hibernating socket remembers: whose it is, the last seq it was sent and the
 * `RATE_LIMIT_PER_MINUTE` its frames count against (the Worker's, at the upgrade). Never a token.
 */
export type SocketAttachment = { principal: string; cursor: number; ratePerMinute?: number };

/** Events per replay page: one page is sent synchronously, then the object gets a turn. */
export const REPLAY_PAGE = 256;

type Rows = Pick<EventStore, "readSerializedAfter">;

/**
 * Sockets still replaying their backlog (docs/design.md §7). In memory only: a replay is a promise of
 * this isolate, and a socket that outlives the isolate (hibernation) has long caught up.
 */
const catchingUp = new WeakMap<WebSocket, { missedSession: boolean }>();

/** True while the socket is replaying: live sends skip it, its replay reaches the head itself. */
export function isCatchingUp(ws: WebSocket): boolean {
  return catchingUp.has(ws);
}

/** Notes that a `session` frame was skipped for a replaying socket, so the replay sends one at its end. */
export function noteSkippedSession(ws: WebSocket): void {
  const state = catchingUp.get(ws);
  if (state) state.missedSession = true;
}

/** Sends one page of events after the socket's cursor and moves the cursor. Synchronous. */
function sendPage(ws: WebSocket, store: Rows, pageSize: number): number {
  const att = ws.deserializeAttachment() as SocketAttachment | null;
  if (!att) return 0;
  const page = store.readSerializedAfter(att.cursor, pageSize);
  for (const row of page) ws.send(`{"type":"event","event":${row.json}}`);
  if (page.length > 0) ws.serializeAttachment({ ...att, cursor: page[page.length - 1]!.seq });
  return page.length;
}

/**
 * Sends a live socket every committed event after its cursor, and moves the cursor. Synchronous:
 * called after each commit, it sends only the few events just committed. A socket still
 * replaying is skipped (its replay will send them, in order, exactly once).
 */
export function pumpSocket(ws: WebSocket, store: Rows): void {
  if (isCatchingUp(ws)) return;
  while (sendPage(ws, store, REPLAY_PAGE) === REPLAY_PAGE) {
    // a commit of more than one page: keep going, nothing can interleave in a synchronous loop
  }
}

/**
 * Replays a new socket's backlog in pages of `pageSize`, yielding a macrotask turn between pages,
 * so catching up 100k events never holds the object for one long synchronous call. Live
 * broadcasts skip the socket meanwhile; the last page (shorter than `pageSize`) and the switch to
 * live happen in one synchronous block, so no event is sent twice or out of order.
 * `onCaughtUp` runs in that same block (e.g. to send a `session` frame that was skipped).
 */
export async function replaySocket(
  ws: WebSocket,
  store: Rows,
  opts: { pageSize?: number; onCaughtUp?: (missedSession: boolean) => void } = {},
): Promise<void> {
  const pageSize = opts.pageSize ?? REPLAY_PAGE;
  const state = { missedSession: false };
  catchingUp.set(ws, state);
  try {
    for (;;) {
      let sent: number;
      try {
        sent = sendPage(ws, store, pageSize);
      } catch {
        return; // the socket closed: it catches up from its cursor when it reconnects
      }
      if (sent < pageSize) {
        catchingUp.delete(ws);
        opts.onCaughtUp?.(state.missedSession);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  } finally {
    catchingUp.delete(ws);
  }
}

/** After a commit: each live socket gets the events past its cursor, and the session if it changed. */
export function broadcast(sockets: WebSocket[], store: Rows, session: Session | null): void {
  for (const ws of sockets) {
    try {
      // A socket still replaying gets these events from its replay, and the session once caught up.
      if (isCatchingUp(ws)) {
        if (session) noteSkippedSession(ws);
        continue;
      }
      pumpSocket(ws, store);
      if (session) ws.send(JSON.stringify({ type: "session", session }));
    } catch {
      // A socket that cannot take a frame is closing; it catches up from its cursor on reconnect.
    }
  }
}

export function sendAll(sockets: WebSocket[], frame: string): void {
  for (const ws of sockets) {
    try {
      ws.send(frame);
    } catch {
      // closing
    }
  }
}
