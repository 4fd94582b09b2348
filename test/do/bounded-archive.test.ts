import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BlobStore } from "../../src/log";
import { applyMigrations } from "../../src/storage";
import { BUILTIN_TOOLS, type ToolContext } from "../../src/tools";
import { countingSql } from "./bounded-log";

function withBlobs<T>(fn: (state: DurableObjectState) => Promise<T>): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`archive-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => {
    // SessionObject migrates lazily with seq 1 (docs/API.md §7.26); these tests use its tables directly.
    state.storage.transactionSync(() => applyMigrations(state.storage.sql));
    return fn(state);
  });
}

const readArchive = BUILTIN_TOOLS.read_archive!;

describe("read_archive pages are bounded in bytes (docs/design.md §6)", () => {
  it("reads only the page from SQLite and never re-hashes the blob; the check at put is recorded", async () => {
    await withBlobs(async (state) => {
      const text = "0123456789abcdef".repeat(256 * 1024); // 4 MiB, 4 chunks
      const counting = countingSql(state.storage.sql);
      const blobs = new BlobStore(counting.sql);
      const meta = blobs.put(text);
      expect(meta.verifiedAt).not.toBeNull();
      expect(blobs.meta(meta.sha256)?.verifiedAt).toBe(meta.verifiedAt);
      const ctx = { blobs, sql: counting.sql } as unknown as ToolContext;
      const ref = `archive://${meta.sha256}`;
      for (const offset of [0, 1024 * 1024 - 10, 3 * 1024 * 1024 + 5]) {
        counting.reset();
        const page = await readArchive.run({ ref, mode: "read", offset, limit: 16384 }, ctx);
        expect(page.status).toBe("ok");
        expect((page.response as { text: string }).text).toBe(text.slice(offset, offset + 16384));
        // A page costs its own bytes, not the blob's 4 MiB (today: two whole reads, one hashed).
        expect(counting.bytes()).toBeLessThan(20_000);
      }
      // Storing the same bytes again trusts the recorded check instead of reading them back.
      counting.reset();
      expect(blobs.put(text).sha256).toBe(meta.sha256);
      expect(counting.bytes()).toBeLessThan(1000);
    });
  });

  it("still refuses a page of a blob whose stored size no longer matches", async () => {
    await withBlobs(async (state) => {
      const blobs = new BlobStore(state.storage.sql);
      const meta = blobs.put("x".repeat(3000));
      state.storage.sql.exec("UPDATE blob_chunks SET data = ? WHERE sha256 = ?", new Uint8Array(10), meta.sha256);
      const ctx = { blobs, sql: state.storage.sql } as unknown as ToolContext;
      const page = await readArchive.run({ ref: `archive://${meta.sha256}`, mode: "read" }, ctx);
      expect(page).toMatchObject({ status: "error", response: { code: "corrupt" } });
    });
  });

  it("checks a blob stored before verification was recorded once, then trusts it", async () => {
    await withBlobs(async (state) => {
      const sql = state.storage.sql;
      const meta = new BlobStore(sql).put("y".repeat(2 * 1024 * 1024));
      sql.exec("UPDATE blobs SET verified_at = NULL");
      const counting = countingSql(sql);
      const ctx = { blobs: new BlobStore(counting.sql), sql: counting.sql } as unknown as ToolContext;
      const ref = `archive://${meta.sha256}`;
      await readArchive.run({ ref, mode: "read" }, ctx);
      expect(counting.bytes()).toBeGreaterThan(2 * 1024 * 1024);
      counting.reset();
      await readArchive.run({ ref, mode: "read", offset: 4096 }, ctx);
      expect(counting.bytes()).toBeLessThan(20_000);
    });
  });
});
