import type { EventStore } from "../log";

/** What a hibernating socket remembers: whose it is and the last seq it was sent. Never a token. */
export type SocketAttachment = { principal: string; cursor: number };

const PAGE = 256;

/**
 * Sends a socket every committed event after its cursor, in bounded pages, and moves the
 * cursor. Synchronous: no other send can interleave, so each event goes out exactly once
 * and in order, whether the socket is catching up or live.
 */
export function pumpSocket(ws: WebSocket, store: Pick<EventStore, "readSerializedAfter">): void {
  const att = ws.deserializeAttachment() as SocketAttachment | null;
  if (!att) return;
  let cursor = att.cursor;
  for (;;) {
    const page = store.readSerializedAfter(cursor, PAGE);
    for (const row of page) {
      ws.send(`{"type":"event","event":${row.json}}`);
      cursor = row.seq;
    }
    if (page.length < PAGE) break;
  }
  if (cursor !== att.cursor) ws.serializeAttachment({ ...att, cursor });
}
