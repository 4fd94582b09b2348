import { type Event, isBlobRef } from "../contract/event";
import type { BlobStore } from "./blobs";
import { chainDigest, GENESIS_DIGEST } from "./hash";
import type { EventStore } from "./store";

export type { VerifyResult } from "../contract/reads";

import type { VerifyResult } from "../contract/reads";

type Row = { seq: number; body: string; digest: string };

/** Problems of a suffix of stored rows from seq `from`, chained on `before` (the digest at `from - 1`, null if missing). */
export function chainProblems(before: string | null, from: number, rows: Iterable<Row>): string[] {
  if (before === null) return [`seq ${from - 1}: missing`];
  const problems: string[] = [];
  let prev = before;
  let expected = from;
  for (const row of rows) {
    if (row.seq !== expected) problems.push(`seq ${row.seq}: expected ${expected}`);
    if (chainDigest(prev, row.body) !== row.digest) problems.push(`seq ${row.seq}: digest mismatch`);
    prev = row.digest;
    expected = row.seq + 1;
  }
  return problems;
}

/**
 * Recomputes the chain from `fromSeq` to the head against the stored digest before it:
 * the part of the log a recovery projects from, checked in O(suffix).
 */
export function verifySuffix(store: Pick<EventStore, "digestAt" | "rowsFrom">, fromSeq: number): string[] {
  return chainProblems(store.digestAt(fromSeq - 1), fromSeq, store.rowsFrom(fromSeq));
}

/**
 * Recomputes the hash chain over stored rows and checks contiguity, one session id,
 * call / dispatch / response pairing and every referenced blob. Streams rows, so
 * memory holds only the sets of call ids, not the events.
 */
export function verifyRows(
  rows: Iterable<Row>,
  sessionId: string,
  blobs?: Pick<BlobStore, "meta" | "check">,
): VerifyResult {
  const verifier = new ChainVerifier(sessionId, blobs);
  for (const row of rows) verifier.add(row);
  return verifier.result();
}

/**
 * The verification of `verifyRows`, fed a row at a time, so a caller can check a long log in
 * chunks and yield between them (docs/API.md §7.20) with the same result as one pass.
 */
export class ChainVerifier {
  readonly #problems: string[] = [];
  #prev = GENESIS_DIGEST;
  #expected = 1;
  readonly #calls = new Set<string>();
  readonly #dispatched = new Set<string>();
  readonly #answered = new Set<string>();

  constructor(
    private readonly sessionId: string,
    private readonly blobs?: Pick<BlobStore, "meta" | "check">,
  ) {}

  add(row: Row): void {
    const problems = this.#problems;
    if (row.seq !== this.#expected) problems.push(`seq ${row.seq}: expected ${this.#expected}`);
    this.#expected = row.seq + 1;
    const want = chainDigest(this.#prev, row.body);
    if (want !== row.digest) problems.push(`seq ${row.seq}: digest mismatch`);
    this.#prev = row.digest;
    let e: Event;
    try {
      e = JSON.parse(row.body) as Event;
    } catch {
      problems.push(`seq ${row.seq}: body is not JSON`);
      return;
    }
    if (e.seq !== row.seq) problems.push(`seq ${row.seq}: body says seq ${e.seq}`);
    if (e.sessionId !== this.sessionId) problems.push(`seq ${row.seq}: another sessionId`);
    const c = e.content;
    const d = e.actions?.toolDispatch;
    if (c?.type === "functionCall") this.#calls.add(c.callId);
    if (d) {
      if (!this.#calls.has(d.callId)) problems.push(`seq ${row.seq}: dispatch of unknown call ${d.callId}`);
      this.#dispatched.add(d.callId);
    }
    if (c?.type === "functionResponse") {
      if (!this.#calls.has(c.callId)) problems.push(`seq ${row.seq}: response to unknown call ${c.callId}`);
      if (this.#answered.has(c.callId)) problems.push(`seq ${row.seq}: second response to ${c.callId}`);
      if (c.status !== "rejected" && !this.#dispatched.has(c.callId))
        problems.push(`seq ${row.seq}: ${c.status} response without dispatch`);
      this.#answered.add(c.callId);
    }
    if (this.blobs)
      for (const ref of findBlobRefs(e)) {
        const meta = this.blobs.meta(ref.sha256);
        if (!meta) problems.push(`seq ${row.seq}: blob ${ref.sha256} missing`);
        else if (meta.bytes !== ref.bytes || !this.blobs.check(ref))
          problems.push(`seq ${row.seq}: blob ${ref.sha256} corrupt`);
      }
  }

  result(): VerifyResult {
    const problems = [...this.#problems];
    return { ok: problems.length === 0, highWater: this.#expected - 1, headDigest: this.#prev, problems };
  }
}

/** Every `{ $blob }` reference inside an event. */
export function findBlobRefs(value: unknown, out: { sha256: string; bytes: number }[] = []) {
  if (isBlobRef(value)) out.push(value.$blob);
  else if (Array.isArray(value)) for (const v of value) findBlobRefs(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) findBlobRefs(v, out);
  return out;
}

/**
 * Verifies rows 1..`highWater` (the head when called; those rows never change) in chunks of at
 * most `chunk` rows, awaiting `yieldTurn` between chunks so the object serves others meanwhile
 * (docs/API.md §7.20). Reports the `highWater` it started from.
 */
export async function verifyInChunks(
  store: { readRows(after: number, through: number, limit: number): Row[]; blobs: Pick<BlobStore, "meta" | "check"> },
  sessionId: string,
  highWater: number,
  chunk: number,
  yieldTurn: () => Promise<unknown>,
): Promise<VerifyResult> {
  const verifier = new ChainVerifier(sessionId, store.blobs);
  for (let after = 0; after < highWater; ) {
    const rows = store.readRows(after, highWater, chunk);
    if (rows.length === 0) break;
    for (const row of rows) verifier.add(row);
    after = rows[rows.length - 1]!.seq;
    if (after < highWater) await yieldTurn();
  }
  const result = verifier.result();
  if (result.highWater !== highWater) result.problems.push(`seq ${highWater}: missing`);
  return { ...result, ok: result.problems.length === 0, highWater };
}
