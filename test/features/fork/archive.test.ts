import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/contract";
import { ARCHIVE_PAGE_BYTES, type ArchivePageReader, pullArchive } from "../../../src/features/fork/archive";

/** docs/API.md#fork: a fork copies its parent's archived results a page per reply, never all at once. */

const text = (n: number, c: string) => c.repeat(n);

function parent(blobs: Record<string, string>) {
  const replies: number[] = [];
  const read: ArchivePageReader = async (sha, offset, limit) => {
    const bytes = new TextEncoder().encode(blobs[sha]!).slice(offset, offset + limit);
    replies.push(bytes.length);
    return { ok: true, value: { bytes, mediaType: "text/plain", total: 0 } };
  };
  return { read, replies };
}

describe("pullArchive", () => {
  it("copies many blobs, large and small, with no reply over one page", async () => {
    const blobs = {
      a: text(10, "a"),
      b: text(3 * ARCHIVE_PAGE_BYTES, "b"),
      c: text(ARCHIVE_PAGE_BYTES + 1, "c"),
      ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`s${i}`, text(50_000, "s")])),
    };
    const p = parent(blobs);
    const refs = Object.entries(blobs).map(([sha256, t]) => ({ sha256, bytes: t.length, mediaType: "text/plain" }));
    const out = await pullArchive(p.read, refs);
    expect(out.map((o) => o.text)).toEqual(Object.values(blobs));
    expect(Math.max(...p.replies)).toBeLessThanOrEqual(ARCHIVE_PAGE_BYTES);
    expect(p.replies.reduce((a, b) => a + b, 0)).toBe(refs.reduce((a, r) => a + r.bytes, 0));
    // 1 + 3 + 2 pages for a, b, c and one for each small blob.
    expect(p.replies).toHaveLength(6 + 40);
  });

  it("a page the parent refuses fails the fork with the parent's code", async () => {
    const read: ArchivePageReader = async () => ({
      ok: false,
      error: { code: "not_found", message: "unknown archive ref" },
    });
    await expect(pullArchive(read, [{ sha256: "x", bytes: 5, mediaType: "text/plain" }])).rejects.toBeInstanceOf(
      ApiError,
    );
  });
});
