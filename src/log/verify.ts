import type { BlobStore } from "./blobs";
import { type Event, isBlobRef } from "./event";
import { chainDigest, GENESIS_DIGEST } from "./hash";

export type VerifyResult = { ok: boolean; highWater: number; headDigest: string; problems: string[] };

/**
 * Recomputes the hash chain over stored rows and checks contiguity, one session id,
 * call / dispatch / response pairing and every referenced blob. Streams rows, so
 * memory holds only the sets of call ids, not the events.
 */
export function verifyRows(
  rows: Iterable<{ seq: number; body: string; digest: string }>,
  sessionId: string,
  blobs?: Pick<BlobStore, "meta" | "check">,
): VerifyResult {
  const problems: string[] = [];
  let prev = GENESIS_DIGEST;
  let expected = 1;
  const calls = new Set<string>();
  const dispatched = new Set<string>();
  const answered = new Set<string>();
  for (const row of rows) {
    if (row.seq !== expected) problems.push(`seq ${row.seq}: expected ${expected}`);
    expected = row.seq + 1;
    const want = chainDigest(prev, row.body);
    if (want !== row.digest) problems.push(`seq ${row.seq}: digest mismatch`);
    prev = row.digest;
    let e: Event;
    try {
      e = JSON.parse(row.body) as Event;
    } catch {
      problems.push(`seq ${row.seq}: body is not JSON`);
      continue;
    }
    if (e.seq !== row.seq) problems.push(`seq ${row.seq}: body says seq ${e.seq}`);
    if (e.sessionId !== sessionId) problems.push(`seq ${row.seq}: another sessionId`);
    const c = e.content;
    const d = e.actions?.toolDispatch;
    if (c?.type === "functionCall") calls.add(c.callId);
    if (d) {
      if (!calls.has(d.callId)) problems.push(`seq ${row.seq}: dispatch of unknown call ${d.callId}`);
      dispatched.add(d.callId);
    }
    if (c?.type === "functionResponse") {
      if (!calls.has(c.callId)) problems.push(`seq ${row.seq}: response to unknown call ${c.callId}`);
      if (answered.has(c.callId)) problems.push(`seq ${row.seq}: second response to ${c.callId}`);
      if (c.status !== "rejected" && !dispatched.has(c.callId))
        problems.push(`seq ${row.seq}: ${c.status} response without dispatch`);
      answered.add(c.callId);
    }
    if (blobs)
      for (const ref of findBlobRefs(e)) {
        const meta = blobs.meta(ref.sha256);
        if (!meta) problems.push(`seq ${row.seq}: blob ${ref.sha256} missing`);
        else if (meta.bytes !== ref.bytes || !blobs.check(ref))
          problems.push(`seq ${row.seq}: blob ${ref.sha256} corrupt`);
      }
  }
  return { ok: problems.length === 0, highWater: expected - 1, headDigest: prev, problems };
}

/** Every `{ $blob }` reference inside an event. */
export function findBlobRefs(value: unknown, out: { sha256: string; bytes: number }[] = []) {
  if (isBlobRef(value)) out.push(value.$blob);
  else if (Array.isArray(value)) for (const v of value) findBlobRefs(v, out);
  else if (value && typeof value === "object") for (const v of Object.values(value)) findBlobRefs(v, out);
  return out;
}
