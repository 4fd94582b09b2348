/**
 * A fork's archive (docs/API.md#fork): the parent's source names the blobs the fork's prefix
 * shows as placeholders; the fork copies their bytes from the parent a page at a time, so no RPC
 * reply carries more than one page, however many results the parent archived.
 */
import { ApiError, type Result } from "../../contract";
import type { Caller } from "../../session/admission";
import type { ArchiveRef, ForkSource } from "./commands";

/** The largest page one reply carries. */
export const ARCHIVE_PAGE_BYTES = 1_048_576;

/** Reads `limit` bytes of blob `sha256` from `offset` in the parent (its `archive` RPC). */
export type ArchivePageReader = (
  sha256: string,
  offset: number,
  limit: number,
) => Promise<Result<{ bytes: Uint8Array; mediaType: string; total: number }>>;

/** The bytes of every ref, read page by page; a page the parent refuses fails the fork. */
export async function pullArchive(
  read: ArchivePageReader,
  refs: ArchiveRef[],
): Promise<{ text: string; mediaType: string }[]> {
  const out: { text: string; mediaType: string }[] = [];
  for (const ref of refs) {
    const bytes = new Uint8Array(ref.bytes);
    for (let offset = 0; offset < ref.bytes; ) {
      const page = await read(ref.sha256, offset, Math.min(ARCHIVE_PAGE_BYTES, ref.bytes - offset));
      if (!page.ok) throw new ApiError(page.error.code, `archive ${ref.sha256}: ${page.error.message}`);
      if (page.value.bytes.length === 0) throw new ApiError("internal", `archive ${ref.sha256}: short read`);
      bytes.set(page.value.bytes, offset);
      offset += page.value.bytes.length;
    }
    out.push({ text: new TextDecoder().decode(bytes), mediaType: ref.mediaType });
  }
  return out;
}

/** The parent session's `archive` RPC, as the fork's object calls it for `caller`. */
type ParentStub = {
  archive: (
    caller: Caller,
    sha256: string,
    range: { ok: true; value: { offset: number; limit: number } },
  ) => ReturnType<ArchivePageReader>;
};

/** The archived results a fork's prefix shows, copied from its parent a page per reply. */
export function pullParentArchive(env: Env, caller: Caller, source: ForkSource) {
  const ns = env.SESSIONS;
  const parent = ns.get(ns.idFromString(source.forkedFrom.sessionId)) as unknown as ParentStub;
  return pullArchive(
    (sha, offset, limit) => parent.archive(caller, sha, { ok: true, value: { offset, limit } }),
    source.archive,
  );
}
