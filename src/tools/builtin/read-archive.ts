import { z } from "zod";
import { canonical, sha256Hex } from "../../log";
import type { ToolDefinition } from "../types";
import { cutUtf8, splitLines, toolError, utf8BoundaryAfter, utf8BoundaryBefore, utf8ByteLength } from "./text";

/** `read` pages (docs/API.md §5): 4096 bytes by default, at most 16384. */
export const ARCHIVE_READ_DEFAULT = 4096;
export const ARCHIVE_READ_MAX = 16384;
/** `query` answers stay under the read page size, so a query never needs offloading itself. */
export const ARCHIVE_QUERY_MAX_BYTES = ARCHIVE_READ_MAX;
export const ARCHIVE_QUERY_DEFAULT_LINES = 100;
/** `inspect` lists at most this many keys of a JSON object. */
export const ARCHIVE_INSPECT_MAX_KEYS = 100;

const REF = /^archive:\/\/([0-9a-f]{64})$/;

const ReadArchiveInput = z.strictObject({
  ref: z.string().max(200).describe("The ref from an offloaded result: archive://<sha256>."),
  mode: z
    .enum(["inspect", "query", "read"])
    .describe(
      "inspect: kind, size, items, keys, lines. query: one JSON item by pointer (path) or a line range (offset, limit). read: a byte page (offset, limit).",
    ),
  path: z
    .string()
    .max(4096)
    .optional()
    .describe("query: RFC 6901 JSON pointer, e.g. '/items/0/name' ('' = whole value)."),
  offset: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe("query: 1-based first line (default 1). read: byte offset (default 0)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(ARCHIVE_READ_MAX)
    .optional()
    .describe(
      `query: number of lines (default ${ARCHIVE_QUERY_DEFAULT_LINES}). read: bytes (default ${ARCHIVE_READ_DEFAULT}, at most ${ARCHIVE_READ_MAX}).`,
    ),
});

type ReadArchiveArgs = z.infer<typeof ReadArchiveInput>;

export const readArchiveTool: ToolDefinition<ReadArchiveArgs> = {
  name: "read_archive",
  description:
    "Look into an offloaded tool result by its archive:// ref: inspect its structure, query one JSON item or a range of lines, or read a page of bytes (use nextOffset to continue).",
  input: ReadArchiveInput,
  effect: () => "read",
  async run(args, ctx) {
    const m = REF.exec(args.ref);
    if (!m) return toolError("bad_ref", "ref must be archive://<64 lowercase hex digits>");
    const sha256 = m[1] as string;
    const meta = ctx.blobs.meta(sha256);
    if (!meta) return toolError("not_found", `no archived result ${args.ref} in this session`);
    const corrupt = () => toolError("corrupt", `archived result ${args.ref} failed its size/digest check`);

    if (args.mode === "read") {
      // docs/design.md §6: the digest was checked once, at `put`; a page checks the stored size (in SQLite)
      // and reads only its own bytes, so paging a 10 MiB archive never hashes it again.
      if (!ctx.blobs.verifiedOnce(meta)) return corrupt();
      // A few bytes beyond the page let the cut see whole characters at both ends.
      const chunk = ctx.blobs.read(sha256, args.offset ?? 0, (args.limit ?? ARCHIVE_READ_DEFAULT) + 8);
      return readPage(chunk, args, meta.bytes);
    }

    // inspect and query need the whole value anyway: check its digest over the bytes they read.
    const whole = ctx.blobs.read(sha256);
    if (!whole || whole.byteLength !== meta.bytes || sha256Hex(whole) !== meta.sha256) return corrupt();
    const text = new TextDecoder().decode(whole);
    const lines = splitLines(text);
    const json = parseJson(text);
    if (args.mode === "inspect") {
      return {
        status: "ok",
        response: {
          ref: args.ref,
          kind: json.ok ? "json" : "text",
          mediaType: meta.mediaType,
          bytes: meta.bytes,
          lines: lines.length,
          ...(json.ok ? describeJson(json.value) : {}),
        },
      };
    }

    if (args.path !== undefined) {
      if (args.offset !== undefined || args.limit !== undefined)
        return toolError("bad_arguments", "query takes either path (a JSON pointer) or offset/limit (lines), not both");
      if (!json.ok) return toolError("not_json", `${args.ref} is text, not JSON; query it by line range instead`);
      const found = resolvePointer(json.value, args.path);
      if (!found.ok) return toolError(found.code, found.message);
      return { status: "ok", response: { ref: args.ref, path: args.path, ...boundedValue(found.value) } };
    }
    return queryLines(args, lines);
  },
};

function readPage(chunk: Uint8Array | null, args: ReadArchiveArgs, total: number) {
  const requested = args.offset ?? 0;
  const limit = args.limit ?? ARCHIVE_READ_DEFAULT;
  if (requested > total) return toolError("out_of_range", `offset ${requested} is past the end (${total} bytes)`);
  const bytes = chunk ?? new Uint8Array(0);
  // An offset inside a character moves forward to the next one; the page ends on a whole character.
  const start = utf8BoundaryAfter(bytes, 0);
  let end = utf8BoundaryBefore(bytes, Math.min(limit, bytes.byteLength));
  // A limit smaller than one character would return nothing for ever; take that character whole.
  if (end <= start && start < bytes.byteLength) end = utf8BoundaryAfter(bytes, start + 1);
  const offset = requested + start;
  const next = requested + end;
  return {
    status: "ok" as const,
    response: {
      text: new TextDecoder().decode(bytes.subarray(start, end)),
      offset,
      nextOffset: next < total ? next : null,
      bytes: total,
    },
  };
}

function queryLines(args: ReadArchiveArgs, lines: string[]) {
  const offset = args.offset ?? 1;
  if (offset < 1) return toolError("bad_arguments", "query offset is a 1-based line number");
  const limit = args.limit ?? ARCHIVE_QUERY_DEFAULT_LINES;
  const out: string[] = [];
  let size = 0;
  let truncated = false;
  for (let i = offset - 1; i < Math.min(lines.length, offset - 1 + limit); i++) {
    const line = lines[i] as string;
    const n = utf8ByteLength(line) + 1;
    if (size + n > ARCHIVE_QUERY_MAX_BYTES) {
      // Never return nothing: a first line over the budget comes back cut, flagged truncated.
      if (out.length === 0) out.push(cutUtf8(line, ARCHIVE_QUERY_MAX_BYTES));
      truncated = true;
      break;
    }
    out.push(line);
    size += n;
  }
  const end = offset - 1 + out.length;
  return {
    status: "ok" as const,
    response: {
      ref: args.ref,
      offset,
      lines: out.length,
      totalLines: lines.length,
      text: out.join("\n"),
      truncated,
      nextOffset: end < lines.length ? end + 1 : null,
    },
  };
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function describeJson(value: unknown) {
  if (Array.isArray(value)) return { type: "array", items: value.length };
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value);
    return {
      type: "object",
      items: keys.length,
      keys: keys.slice(0, ARCHIVE_INSPECT_MAX_KEYS),
      ...(keys.length > ARCHIVE_INSPECT_MAX_KEYS ? { keysTruncated: true } : {}),
    };
  }
  return { type: value === null ? "null" : typeof value };
}

/** A queried value, or its outline when it is too large to return whole. */
function boundedValue(value: unknown) {
  const json = canonical(value);
  const bytes = utf8ByteLength(json);
  if (bytes <= ARCHIVE_QUERY_MAX_BYTES) return { value };
  return {
    tooLarge: true,
    bytes,
    ...describeJson(value),
    preview: cutUtf8(json, 1024),
    hint: "query a deeper pointer, or use mode read to page through the archive",
  };
}

type PointerResult = { ok: true; value: unknown } | { ok: false; code: string; message: string };

/** RFC 6901: "" is the whole document; each "/token" steps in, with ~1 → "/" and ~0 → "~". */
export function resolvePointer(doc: unknown, pointer: string): PointerResult {
  if (pointer === "") return { ok: true, value: doc };
  if (!pointer.startsWith("/")) return { ok: false, code: "bad_pointer", message: "a JSON pointer starts with /" };
  let value = doc;
  for (const raw of pointer.slice(1).split("/")) {
    if (/~(?![01])/.test(raw)) return { ok: false, code: "bad_pointer", message: `bad escape in token "${raw}"` };
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= value.length)
        return { ok: false, code: "not_found", message: `no item ${token} in an array of ${value.length}` };
      value = value[Number(token)];
    } else if (value !== null && typeof value === "object" && Object.hasOwn(value, token)) {
      value = (value as Record<string, unknown>)[token];
    } else {
      return { ok: false, code: "not_found", message: `nothing at ${pointer} (missing "${token}")` };
    }
  }
  return { ok: true, value };
}
