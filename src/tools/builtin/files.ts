import { z } from "zod";
import { normalizeWorkspaceDir, normalizeWorkspacePath } from "../paths";
import type { ToolDefinition } from "../types";
import { listFiles, readFileRow } from "../workspace";
import { splitLines, toolError, utf8ByteLength } from "./text";

/** Largest file content a write may produce (UTF-8 bytes); keeps a `files` row far below SQLite's 2 MB. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Entries list_files returns at most. */
export const MAX_LIST_ENTRIES = 1000;
/** Lines read_file returns when no limit is given, and the most it accepts. */
export const DEFAULT_READ_LINES = 2000;
export const MAX_READ_LINES = 20000;
/** search_files bounds: matches returned, characters of each matched line kept. */
export const MAX_SEARCH_MATCHES = 200;
export const MAX_MATCH_LINE_CHARS = 500;

// Raw inputs may be percent-encoded (three characters per byte), so the string bound is 3× the byte limit.
const pathArg = z
  .string()
  .max(3 * 1024)
  .describe("Workspace path: relative, '/'-separated, e.g. 'src/main.ts'.");
const dirArg = z
  .string()
  .max(3 * 1024)
  .optional()
  .describe("Directory to look in, relative to the workspace root; omit or '' for the whole workspace.");
const contentArg = z
  .string()
  .max(MAX_FILE_BYTES)
  .refine((s) => utf8ByteLength(s) <= MAX_FILE_BYTES, { message: `at most ${MAX_FILE_BYTES} UTF-8 bytes` });

function badPath(message: string) {
  return toolError("bad_path", message);
}

function notFound(path: string) {
  return toolError("not_found", `no file at ${path}`);
}

const ListFilesInput = z.strictObject({ path: dirArg });

export const listFilesTool: ToolDefinition<z.infer<typeof ListFilesInput>> = {
  name: "list_files",
  description: `List workspace files at or under a directory, sorted by path (at most ${MAX_LIST_ENTRIES}), with their size in bytes and last update time.`,
  input: ListFilesInput,
  effect: () => "read",
  async run(args, ctx) {
    const dir = normalizeWorkspaceDir(args.path);
    if (!dir.ok) return badPath(dir.message);
    const files = listFiles(ctx.sql, dir.path, MAX_LIST_ENTRIES + 1);
    const truncated = files.length > MAX_LIST_ENTRIES;
    return { status: "ok", response: { files: files.slice(0, MAX_LIST_ENTRIES), truncated } };
  },
};

const ReadFileInput = z.strictObject({
  path: pathArg,
  offset: z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe("First line to return, 1-based (default 1)."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_READ_LINES)
    .optional()
    .describe(`Number of lines to return (default ${DEFAULT_READ_LINES}).`),
});

export const readFileTool: ToolDefinition<z.infer<typeof ReadFileInput>> = {
  name: "read_file",
  description:
    "Read a workspace text file, optionally a range of lines (offset is the 1-based first line, limit the line count). The answer says totalLines and nextOffset (null at the end).",
  input: ReadFileInput,
  effect: () => "read",
  async run(args, ctx) {
    const p = normalizeWorkspacePath(args.path);
    if (!p.ok) return badPath(p.message);
    const row = readFileRow(ctx.sql, p.path);
    if (!row) return notFound(p.path);
    const lines = splitLines(row.content);
    const offset = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_READ_LINES;
    const page = lines.slice(offset - 1, offset - 1 + limit);
    const end = offset - 1 + page.length;
    // Whole-file reads return the content byte for byte; a slice re-joins its lines.
    const whole = offset === 1 && page.length === lines.length;
    return {
      status: "ok",
      response: {
        path: p.path,
        content: whole ? row.content : page.join("\n"),
        totalLines: lines.length,
        offset,
        lines: page.length,
        nextOffset: end < lines.length ? end + 1 : null,
        bytes: row.bytes,
        version: row.version,
      },
    };
  },
};

const SearchFilesInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(1000)
    .describe("Plain text to look for (case-sensitive substring, not a regular expression)."),
  path: dirArg,
});

export const searchFilesTool: ToolDefinition<z.infer<typeof SearchFilesInput>> = {
  name: "search_files",
  description: `Find lines containing a plain, case-sensitive substring (not a regex) in workspace files at or under a directory. Returns up to ${MAX_SEARCH_MATCHES} matches as { path, line (1-based), text }.`,
  input: SearchFilesInput,
  effect: () => "read",
  async run(args, ctx) {
    const dir = normalizeWorkspaceDir(args.path);
    if (!dir.ok) return badPath(dir.message);
    // A plain substring, not a regex: a model-written regex could backtrack for ever, and a
    // Durable Object has no way to interrupt synchronous work.
    const matches: { path: string; line: number; text: string }[] = [];
    let truncated = false;
    let filesSearched = 0;
    const cursor = dir.path
      ? ctx.sql.exec<{ path: string; content: string }>(
          "SELECT path, content FROM files WHERE path = ? OR substr(path, 1, length(?)) = ? ORDER BY path",
          dir.path,
          `${dir.path}/`,
          `${dir.path}/`,
        )
      : ctx.sql.exec<{ path: string; content: string }>("SELECT path, content FROM files ORDER BY path");
    // No await inside this loop, so the cursor is read within one synchronous block.
    outer: for (const row of cursor) {
      filesSearched++;
      if (!row.content.includes(args.pattern)) continue;
      const lines = splitLines(row.content);
      for (let i = 0; i < lines.length; i++) {
        const text = lines[i] as string;
        if (!text.includes(args.pattern)) continue;
        if (matches.length === MAX_SEARCH_MATCHES) {
          truncated = true;
          break outer;
        }
        matches.push({ path: row.path, line: i + 1, text: clipLine(text, args.pattern) });
      }
    }
    return { status: "ok", response: { pattern: args.pattern, matches, truncated, filesSearched } };
  },
};

/** Keeps a long matched line readable: a window around the first match. */
function clipLine(text: string, pattern: string): string {
  if (text.length <= MAX_MATCH_LINE_CHARS) return text;
  const at = text.indexOf(pattern);
  const start = Math.max(0, Math.min(at - 100, text.length - MAX_MATCH_LINE_CHARS));
  const piece = text.slice(start, start + MAX_MATCH_LINE_CHARS);
  return `${start > 0 ? "…" : ""}${piece}${start + MAX_MATCH_LINE_CHARS < text.length ? "…" : ""}`;
}

const WriteFileInput = z.strictObject({
  path: pathArg,
  content: contentArg.describe("The whole new content of the file (UTF-8 text)."),
});

export const writeFileTool: ToolDefinition<z.infer<typeof WriteFileInput>> = {
  name: "write_file",
  description: "Create a workspace file or replace its whole content.",
  input: WriteFileInput,
  effect: () => "write",
  async run(args, ctx) {
    const p = normalizeWorkspacePath(args.path);
    if (!p.ok) return badPath(p.message);
    const created = readFileRow(ctx.sql, p.path) === null;
    return {
      status: "ok",
      response: { path: p.path, bytes: utf8ByteLength(args.content), created },
      fileChanges: [{ path: p.path, content: args.content }],
    };
  },
};

const EditFileInput = z.strictObject({
  path: pathArg,
  oldText: z.string().min(1).max(MAX_FILE_BYTES).describe("Exact text to replace; it must occur exactly once."),
  newText: z.string().max(MAX_FILE_BYTES).describe("Replacement text."),
});

export const editFileTool: ToolDefinition<z.infer<typeof EditFileInput>> = {
  name: "edit_file",
  description:
    "Replace one exact occurrence of oldText with newText in a workspace file. Fails if oldText is missing or occurs more than once (add surrounding lines to make it unique).",
  input: EditFileInput,
  effect: () => "write",
  async run(args, ctx) {
    const p = normalizeWorkspacePath(args.path);
    if (!p.ok) return badPath(p.message);
    const row = readFileRow(ctx.sql, p.path);
    if (!row) return notFound(p.path);
    const at = row.content.indexOf(args.oldText);
    if (at < 0) return toolError("no_match", `oldText does not occur in ${p.path}`);
    // Overlapping occurrences count too: either way the edit would be ambiguous.
    const again = row.content.indexOf(args.oldText, at + 1);
    if (again >= 0) {
      const count = countOccurrences(row.content, args.oldText);
      return toolError("ambiguous", `oldText occurs ${count} times in ${p.path}; include more context`, {
        occurrences: count,
      });
    }
    // Slicing, not String.replace: newText must not have `$&`-style patterns expanded.
    const content = row.content.slice(0, at) + args.newText + row.content.slice(at + args.oldText.length);
    const bytes = utf8ByteLength(content);
    if (bytes > MAX_FILE_BYTES) return toolError("too_large", `the edited file would be ${bytes} bytes`);
    const line = row.content.slice(0, at).split("\n").length;
    return {
      status: "ok",
      response: { path: p.path, bytes, line },
      fileChanges: [{ path: p.path, content }],
    };
  },
};

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) n++;
  return n;
}

const DeleteFileInput = z.strictObject({ path: pathArg });

export const deleteFileTool: ToolDefinition<z.infer<typeof DeleteFileInput>> = {
  name: "delete_file",
  description: "Delete a workspace file.",
  input: DeleteFileInput,
  effect: () => "write",
  async run(args, ctx) {
    const p = normalizeWorkspacePath(args.path);
    if (!p.ok) return badPath(p.message);
    if (!readFileRow(ctx.sql, p.path)) return notFound(p.path);
    return {
      status: "ok",
      response: { path: p.path, deleted: true },
      fileChanges: [{ path: p.path, content: null }],
    };
  },
};
