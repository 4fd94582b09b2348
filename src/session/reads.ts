/**
 * The session's read paths (docs/API.md §2, §7.20), each bounded: the object only admits the
 * caller and hands its store here. Pure reads: nothing here writes.
 */
import { ApiError } from "../contract";
import { type Event, type EventStore, readBoundedAfter, verifyInChunks } from "../log";
import { buildTranscript, pageTranscript } from "../projections";
import { listFilesPage, readFileRow } from "../tools";
import type { Admitted } from "./admission";

/**
 * `/verify` checks at most this many events between yields (docs/API.md §7.20: at most 5,000). An
 * event costs 9–40 µs (read, parse, SHA-256; the bench's load decides), so a chunk holds the object
 * for at most ~20 ms; 2,000 measured 76 ms on a loaded machine, past the bench's 50 ms target.
 */
export const VERIFY_CHUNK_EVENTS = 500;
/** A transcript page reads at most this many events, or this many bytes of them. */
const TRANSCRIPT_SCAN_EVENTS = 5_000;
const TRANSCRIPT_SCAN_BYTES = 8 * 1024 * 1024;
const TRANSCRIPT_READ_EVENTS = 32;

/** A value the Worker parsed at its boundary, or why it is invalid (answered after the 404 checks). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export function checkLimit(name: string, value: number, min: number, max: number) {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ApiError("bad_request", `${name}: an integer from ${min} to ${max}`);
}

/** One page of the export: NDJSON lines exactly as stored. */
export function exportPage(store: EventStore, after: number, limit: number) {
  const rows = store.readSerializedAfter(after, limit);
  return { text: rows.map((r) => `${r.json}\n`).join(""), last: rows.at(-1)?.seq ?? after, done: rows.length < limit };
}

/**
 * One page of the transcript: items after event `after`, at most `limit` (1–500). Reads at most
 * TRANSCRIPT_SCAN_EVENTS events or TRANSCRIPT_SCAN_BYTES of them, so a page costs the same on
 * any log; `next` is the cursor to pass as `after` for the rest.
 */
export function transcriptPage(
  store: EventStore,
  after: number,
  limit: number,
  openTurnEvents: () => readonly Event[] = () => [],
) {
  checkLimit("limit", limit, 1, 500);
  if (!Number.isSafeInteger(after) || after < 0) throw new ApiError("bad_request", "after: a seq ≥ 0");
  let items = 0;
  const { events, atHead } = readBoundedAfter(store, after, {
    maxEvents: TRANSCRIPT_SCAN_EVENTS,
    maxBytes: TRANSCRIPT_SCAN_BYTES,
    // Small reads: an event's body may be up to 512 KiB, so one read holds at most ~16 MiB.
    pageSize: Math.min(limit + 1, TRANSCRIPT_READ_EVENTS),
    // One item past the page tells where the page ends.
    enough: (page) => {
      items += buildTranscript(page).length;
      return items > limit;
    },
  });
  return pageTranscript(events, limit, atHead, (callIds, through) => {
    // A call's approval request and response through the call index; a dispatch only matters while
    // the call has no response, and then it is in the open turn's suffix (store.readCallOutcomes).
    const ids = new Set(callIds);
    const dispatched = openTurnEvents().filter((e) => ids.has(e.actions?.toolDispatch?.callId ?? ""));
    const later = [...callIds.flatMap((id) => store.readCallOutcomes(id)), ...dispatched].filter(
      (e) => e.seq > through,
    );
    return [...later, ...store.readDecisionsAfter(through)].sort((a, b) => a.seq - b.seq);
  });
}

/**
 * Verifies the log from seq 1 to the `highWater` it started from, in chunks of at most
 * VERIFY_CHUNK_EVENTS with a macrotask turn between them, so the agent loop and other requests
 * run meanwhile. Rows up to that highWater never change.
 */
export function verifyLog(store: EventStore, sessionId: string) {
  const { highWater } = store.head();
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  return verifyInChunks(store, sessionId, highWater, VERIFY_CHUNK_EVENTS, turn);
}

/** The archive ref is looked up before the parsed range's error is answered (docs/API.md §7.1). */
export function archivePage(
  store: EventStore,
  sha256: string,
  range: Parsed<{ offset: number; limit: number | undefined }>,
) {
  const meta = store.blobs.meta(sha256);
  if (!meta) throw new ApiError("not_found", "unknown archive ref");
  if (!range.ok) throw new ApiError("bad_request", range.message);
  const bytes = store.blobs.read(sha256, range.value.offset, range.value.limit)!;
  return { bytes, mediaType: meta.mediaType, total: meta.bytes };
}

/** One page of the workspace listing, by path: `limit` 1–1000, `next` the last path. */
export function filesPage(sql: SqlStorage, after: string | null, limit: number) {
  checkLimit("limit", limit, 1, 1000);
  return listFilesPage(sql, after, limit);
}

export function fileContent(sql: SqlStorage, path: string): string {
  const row = readFileRow(sql, path);
  if (!row) throw new ApiError("not_found", "no such file");
  return row.content;
}

/** A page of events with the head, and whether the session may be cached at the edge (docs/API.md#reading-a-session). */
export function eventsPage({ runtime, store }: Pick<Admitted, "runtime" | "store">, after: number, limit: number) {
  const cacheable = !runtime.summary?.options.jurisdiction;
  return { events: store.readAfter(after, limit), ...store.head(), cacheable };
}

/** What `GET /context` shows: the next model call's context, without its tools and position. */
export function contextView({ runtime }: Pick<Admitted, "runtime">) {
  const { throughSeq: _t, tools: _tools, ...view } = runtime.buildContext();
  return view;
}
