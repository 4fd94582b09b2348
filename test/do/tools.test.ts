import { describe, expect, it } from "vitest";
import {
  applyFileChanges,
  BUILTIN_TOOLS,
  listFiles,
  makePlaceholder,
  readFileRow,
  serializeToolResponse,
} from "../../src/tools";
import { call, err, ok, withSql } from "./tools-support";

describe("workspace tools", () => {
  it("write → read → edit → search → list → delete", async () => {
    await withSql(async (ctx) => {
      expect(ok(await call(ctx, "write_file", { path: "src/a.ts", content: "one\ntwo\nthree\n" }))).toEqual({
        path: "src/a.ts",
        bytes: 14,
        created: true,
      });
      // Tools never write the table themselves: without applyFileChanges nothing changes.
      const unapplied = await BUILTIN_TOOLS.write_file!.run({ path: "ghost.txt", content: "x" }, ctx);
      expect(unapplied.fileChanges).toEqual([{ path: "ghost.txt", content: "x" }]);
      expect(readFileRow(ctx.sql, "ghost.txt")).toBeNull();

      await call(ctx, "write_file", { path: "src/lib/b.ts", content: "héllo two\n" });
      await call(ctx, "write_file", { path: "srcx.txt", content: "two" });
      await call(ctx, "write_file", { path: "my%20notes.md", content: "decoded" });

      const read = ok(await call(ctx, "read_file", { path: "src/a.ts" }));
      expect(read).toMatchObject({ path: "src/a.ts", content: "one\ntwo\nthree\n", totalLines: 3, nextOffset: null });
      expect(ok(await call(ctx, "read_file", { path: "src/a.ts", offset: 2, limit: 1 }))).toMatchObject({
        content: "two",
        offset: 2,
        lines: 1,
        totalLines: 3,
        nextOffset: 3,
      });
      expect(ok(await call(ctx, "read_file", { path: "src/a.ts", offset: 9 }))).toMatchObject({
        content: "",
        nextOffset: null,
      });
      expect(ok(await call(ctx, "read_file", { path: "my notes.md" })).content).toBe("decoded");
      expect(err(await call(ctx, "read_file", { path: "nope.txt" })).code).toBe("not_found");
      expect(err(await call(ctx, "read_file", { path: "../etc/passwd" })).code).toBe("bad_path");

      expect(ok(await call(ctx, "edit_file", { path: "src/a.ts", oldText: "two", newText: "$& 2" }))).toMatchObject({
        line: 2,
      });
      expect(readFileRow(ctx.sql, "src/a.ts")).toMatchObject({ content: "one\n$& 2\nthree\n", version: 2 });
      expect(err(await call(ctx, "edit_file", { path: "src/a.ts", oldText: "e", newText: "E" }))).toMatchObject({
        code: "ambiguous",
      });
      expect(err(await call(ctx, "edit_file", { path: "src/a.ts", oldText: "zzz", newText: "" })).code).toBe(
        "no_match",
      );
      expect(err(await call(ctx, "edit_file", { path: "missing", oldText: "a", newText: "" })).code).toBe("not_found");
      expect(readFileRow(ctx.sql, "src/a.ts")?.version).toBe(2);

      const search = ok(await call(ctx, "search_files", { pattern: "two" }));
      expect(search.matches).toEqual([
        { path: "src/lib/b.ts", line: 1, text: "héllo two" },
        { path: "srcx.txt", line: 1, text: "two" },
      ]);
      // A directory is a path prefix plus "/": "src" does not include "srcx.txt".
      expect(ok(await call(ctx, "search_files", { pattern: "o", path: "src" })).matches).toEqual([
        { path: "src/a.ts", line: 1, text: "one" },
        { path: "src/lib/b.ts", line: 1, text: "héllo two" },
      ]);
      // A plain substring: regex syntax is matched literally.
      expect(ok(await call(ctx, "search_files", { pattern: "$& 2" })).matches).toEqual([
        { path: "src/a.ts", line: 2, text: "$& 2" },
      ]);
      expect(ok(await call(ctx, "search_files", { pattern: "t.o" })).matches).toEqual([]);
      expect(err(await call(ctx, "search_files", { pattern: "x", path: "/abs" })).code).toBe("bad_path");

      const all = ok(await call(ctx, "list_files", {}));
      expect((all.files as { path: string }[]).map((f) => f.path)).toEqual([
        "my notes.md",
        "src/a.ts",
        "src/lib/b.ts",
        "srcx.txt",
      ]);
      expect(ok(await call(ctx, "list_files", { path: "src/" })).files).toEqual([
        { path: "src/a.ts", bytes: 15, updatedAt: expect.any(String) },
        { path: "src/lib/b.ts", bytes: 11, updatedAt: expect.any(String) },
      ]);
      expect(err(await call(ctx, "list_files", { path: "a//b" })).code).toBe("bad_path");

      expect(ok(await call(ctx, "delete_file", { path: "src/a.ts" }))).toEqual({ path: "src/a.ts", deleted: true });
      expect(err(await call(ctx, "delete_file", { path: "src/a.ts" })).code).toBe("not_found");
      expect(listFiles(ctx.sql, "src").map((f) => f.path)).toEqual(["src/lib/b.ts"]);
      // Recreating starts at version 1 again.
      await call(ctx, "write_file", { path: "src/a.ts", content: "" });
      expect(readFileRow(ctx.sql, "src/a.ts")).toMatchObject({ version: 1, bytes: 0, content: "" });
    });
  });

  it("bounds search results and refuses writes with bad paths", async () => {
    await withSql(async (ctx) => {
      await call(ctx, "write_file", { path: "big.txt", content: "needle\n".repeat(300) });
      const r = ok(await call(ctx, "search_files", { pattern: "needle" }));
      expect((r.matches as unknown[]).length).toBe(200);
      expect(r.truncated).toBe(true);
      for (const path of ["a\\b", "%2e%2e/x", "a%00b", "x/./y", `${"a".repeat(256)}.txt`])
        expect(err(await call(ctx, "write_file", { path, content: "x" })).code).toBe("bad_path");
      expect(listFiles(ctx.sql).map((f) => f.path)).toEqual(["big.txt"]);
      expect(() => applyFileChanges(ctx.sql, [{ path: "../x", content: "x" }], 1, "t")).toThrow(/bad workspace path/);
    });
  });
});

describe("read_archive", () => {
  const items = Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ["a/b", "c~d"] }));
  const json = JSON.stringify({ items, total: 2000, "a/b": { "m~n": 7 } });

  it("inspects, queries and pages a 200 KB JSON blob", async () => {
    await withSql(async (ctx) => {
      expect(json.length).toBeGreaterThan(100_000);
      const meta = ctx.blobs.put(json, "application/json");
      const ref = `archive://${meta.sha256}`;
      expect(ok(await call(ctx, "read_archive", { ref, mode: "inspect" }))).toMatchObject({
        kind: "json",
        bytes: meta.bytes,
        type: "object",
        items: 3,
        keys: ["items", "total", "a/b"],
        lines: 1,
      });
      const q = (path: string) => call(ctx, "read_archive", { ref, mode: "query", path });
      expect(ok(await q("/items/1234"))).toMatchObject({ value: items[1234] });
      expect(ok(await q("/items/1234/tags/1"))).toMatchObject({ value: "c~d" });
      expect(ok(await q("/total")).value).toBe(2000);
      expect(ok(await q("/a~1b/m~0n")).value).toBe(7);
      expect(err(await q("/items/2000")).code).toBe("not_found");
      expect(err(await q("/items/01")).code).toBe("not_found");
      expect(err(await q("/nope")).code).toBe("not_found");
      expect(err(await q("items")).code).toBe("bad_pointer");
      // The whole document is too big to return: an outline instead.
      expect(ok(await q(""))).toMatchObject({ tooLarge: true, type: "object", items: 3 });
      expect(ok(await q("/items"))).toMatchObject({ tooLarge: true, type: "array", items: 2000 });

      // Paging with read: default 4096 bytes, pages join back to the whole.
      let text = "";
      let offset: number | null = 0;
      let pages = 0;
      while (offset !== null) {
        const page = ok(await call(ctx, "read_archive", { ref, mode: "read", offset, limit: 16384 }));
        expect(page.offset).toBe(offset);
        text += page.text as string;
        offset = page.nextOffset as number | null;
        pages++;
      }
      expect(text).toBe(json);
      expect(pages).toBe(Math.ceil(meta.bytes / 16384));
      const first = ok(await call(ctx, "read_archive", { ref, mode: "read" }));
      expect(first).toMatchObject({ offset: 0, nextOffset: 4096, bytes: meta.bytes });
      expect((first.text as string).length).toBe(4096);
    });
  });

  it("queries text by line range and cuts pages at UTF-8 boundaries", async () => {
    await withSql(async (ctx) => {
      const lines = Array.from({ length: 50 }, (_, i) => `line ${i + 1} ✓`);
      const text = `${lines.join("\n")}\n`;
      const meta = ctx.blobs.put(text);
      const ref = `archive://${meta.sha256}`;
      expect(ok(await call(ctx, "read_archive", { ref, mode: "inspect" }))).toMatchObject({
        kind: "text",
        lines: 50,
        bytes: meta.bytes,
      });
      expect(ok(await call(ctx, "read_archive", { ref, mode: "query", offset: 10, limit: 3 }))).toMatchObject({
        text: "line 10 ✓\nline 11 ✓\nline 12 ✓",
        totalLines: 50,
        nextOffset: 13,
      });
      expect(ok(await call(ctx, "read_archive", { ref, mode: "query", offset: 49 }))).toMatchObject({
        text: "line 49 ✓\nline 50 ✓",
        nextOffset: null,
      });
      expect(err(await call(ctx, "read_archive", { ref, mode: "query", path: "/x" })).code).toBe("not_json");

      // "✓" is 3 bytes: "line 1 ✓" is bytes 0..9, so a 9-byte page stops before the check mark.
      const p1 = ok(await call(ctx, "read_archive", { ref, mode: "read", offset: 0, limit: 9 }));
      expect(p1).toMatchObject({ text: "line 1 ", offset: 0, nextOffset: 7 });
      // An offset inside a character starts at the next one; the page still ends at offset + limit.
      const p2 = ok(await call(ctx, "read_archive", { ref, mode: "read", offset: 8, limit: 6 }));
      expect(p2).toMatchObject({ text: "\nlin", offset: 10, nextOffset: 14 });
      // A page smaller than one character still makes progress.
      const p3 = ok(await call(ctx, "read_archive", { ref, mode: "read", offset: 7, limit: 1 }));
      expect(p3).toMatchObject({ text: "✓", offset: 7, nextOffset: 10 });
      // Every page decodes cleanly and they add up to the whole text, whatever the page size.
      for (const limit of [1, 2, 5, 7]) {
        let out = "";
        let offset: number | null = 0;
        while (offset !== null) {
          const page = ok(await call(ctx, "read_archive", { ref, mode: "read", offset, limit }));
          expect(page.text as string).not.toContain("\ufffd");
          out += page.text as string;
          offset = page.nextOffset as number | null;
        }
        expect(out).toBe(text);
      }
      expect(ok(await call(ctx, "read_archive", { ref, mode: "read", offset: meta.bytes }))).toMatchObject({
        text: "",
        nextOffset: null,
      });
      expect(err(await call(ctx, "read_archive", { ref, mode: "read", offset: meta.bytes + 1 })).code).toBe(
        "out_of_range",
      );
    });
  });

  it("refuses bad refs, missing and corrupt blobs", async () => {
    await withSql(async (ctx) => {
      const meta = ctx.blobs.put("hello");
      for (const ref of [
        meta.sha256,
        `archive://${meta.sha256.toUpperCase()}`,
        "archive://abc",
        `blob://${meta.sha256}`,
      ])
        expect(err(await call(ctx, "read_archive", { ref, mode: "inspect" })).code).toBe("bad_ref");
      expect(err(await call(ctx, "read_archive", { ref: `archive://${"ab".repeat(32)}`, mode: "read" })).code).toBe(
        "not_found",
      );
      ctx.sql.exec("UPDATE blob_chunks SET data = ? WHERE sha256 = ?", new TextEncoder().encode("jello"), meta.sha256);
      expect(err(await call(ctx, "read_archive", { ref: `archive://${meta.sha256}`, mode: "inspect" })).code).toBe(
        "corrupt",
      );
    });
  });

  it("reads back what an offload placeholder points at", async () => {
    await withSql(async (ctx) => {
      const response = { rows: Array.from({ length: 500 }, (_, i) => ({ i, s: "ü".repeat(20) })) };
      const text = serializeToolResponse(response);
      const meta = ctx.blobs.put(text, "application/json");
      const placeholder = makePlaceholder("http_fetch", text, meta);
      expect(placeholder).toMatchObject({
        offloaded: true,
        tool: "http_fetch",
        bytes: meta.bytes,
        sha256: meta.sha256,
      });
      expect(new TextEncoder().encode(placeholder.preview).byteLength).toBeLessThanOrEqual(512);
      expect(text.startsWith(placeholder.preview)).toBe(true);
      expect(
        ok(await call(ctx, "read_archive", { ref: placeholder.ref, mode: "query", path: "/rows/499/i" })).value,
      ).toBe(499);
    });
  });
});
