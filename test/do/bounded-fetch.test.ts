import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BLOB_CHUNK_BYTES, BlobStore, EventStore, INLINE_EVENT_LIMIT, isBlobRef } from "../../src/log";
import { applyMigrations } from "../../src/storage";
import { BUILTIN_TOOLS, serializeToolResponse, type ToolContext } from "../../src/tools";
import { countingSql } from "./bounded-log";

const TEN_MIB = 10 * 1024 * 1024;

function inFreshObject<T>(fn: (state: DurableObjectState) => Promise<T>): Promise<T> {
  const stub = env.SESSIONS.get(env.SESSIONS.idFromName(`fetch-${crypto.randomUUID()}`));
  return runInDurableObject(stub, (_o, state) => {
    // SessionObject migrates lazily with seq 1 (docs/API.md §7.26); these tests use its tables directly.
    state.storage.transactionSync(() => applyMigrations(state.storage.sql));
    return fn(state);
  });
}

/** A body of `bytes` bytes streamed in 64 KiB chunks, with multi-byte characters across chunk edges. */
function streamedBody(bytes: number): { stream: ReadableStream<Uint8Array>; text: string } {
  const unit = "abcdefghé€𝄞\n"; // 1, 2, 3 and 4-byte characters
  const text = unit.repeat(Math.ceil(bytes / new TextEncoder().encode(unit).byteLength));
  const all = new TextEncoder().encode(text);
  let at = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= all.byteLength) return c.close();
      c.enqueue(all.slice(at, at + 65_536));
      at += 65_536;
    },
  });
  return { stream, text };
}

describe("a 10 MiB tool result is streamed, not copied whole (docs/design.md §6)", () => {
  it("http_fetch reads a 10 MiB body into one buffer and decodes it once, to the same text, cut at the cap on a character", async () => {
    await inFreshObject(async (state) => {
      const { stream, text } = streamedBody(TEN_MIB - 1000);
      const ctx = {
        signal: new AbortController().signal,
        httpAllowedHosts: ["big.test"],
        fetch: async () => new Response(stream),
        blobs: new BlobStore(state.storage.sql),
        sql: state.storage.sql,
      } as unknown as ToolContext;
      const r = await BUILTIN_TOOLS.http_fetch!.run({ url: "https://big.test/x", method: "GET" }, ctx);
      expect(r.status).toBe("ok");
      const body = (r.response as { body: string; truncated: boolean }).body;
      expect(body === text).toBe(true);
      expect((r.response as { truncated: boolean }).truncated).toBe(false);

      const over = streamedBody(TEN_MIB + 100_000);
      const cut = await BUILTIN_TOOLS.http_fetch!.run({ url: "https://big.test/y", method: "GET" }, {
        ...ctx,
        fetch: async () => new Response(over.stream),
      } as ToolContext);
      const cutBody = (cut.response as { body: string; truncated: boolean }).body;
      expect((cut.response as { truncated: boolean }).truncated).toBe(true);
      const bytes = new TextEncoder().encode(cutBody).byteLength;
      expect(bytes).toBeLessThanOrEqual(TEN_MIB);
      expect(bytes).toBeGreaterThan(TEN_MIB - 4);
      expect(over.text.startsWith(cutBody)).toBe(true);
    });
  });

  it("archives and commits a 10 MiB result holding at most one chunk from SQLite at a time", async () => {
    await inFreshObject(async (state) => {
      const { text } = streamedBody(TEN_MIB);
      const counting = countingSql(state.storage.sql);
      const store = new EventStore(counting.sql, "s", (f) => state.storage.transactionSync(f));
      const response = { status: 200, headers: {}, body: text, truncated: false, url: "https://big.test/x" };
      const serialized = serializeToolResponse(response);
      const meta = store.blobs.put(serialized, "application/json");
      expect(meta.bytes).toBe(new TextEncoder().encode(serialized).byteLength);
      const [e] = store.append([
        {
          author: "tool",
          modelVisibility: "visible",
          content: { type: "functionResponse", callId: "c", name: "http_fetch", status: "ok", response },
          actions: { stateDelta: { offload: { sha256: meta.sha256, bytes: meta.bytes, preview: "" } } },
        },
      ]);
      // The event holds the result as the same blob (docs/API.md §3), checked once at put.
      const ref = (e!.content as { response: unknown }).response;
      expect(isBlobRef(ref) && ref.$blob.sha256).toBe(meta.sha256);
      // Today's put and check read the whole 10 MiB back in one result.
      expect(counting.maxResult()).toBeLessThanOrEqual(BLOB_CHUNK_BYTES + INLINE_EVENT_LIMIT);
      expect(new TextDecoder().decode(store.blobs.read(meta.sha256)!) === serialized).toBe(true);
    });
  });
});
