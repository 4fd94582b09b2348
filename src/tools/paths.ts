/** Limits from docs/API.md §5 (UTF-8 bytes, measured after one percent-decoding). */
export const MAX_SEGMENT_BYTES = 255;
export const MAX_PATH_BYTES = 1024;

export type PathResult = { ok: true; path: string } | { ok: false; message: string };

const encoder = new TextEncoder();
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Checks a workspace file path (docs/API.md §5) and returns it percent-decoded once.
 * Anything outside the rules is refused with a reason, never clamped or repaired.
 */
export function normalizeWorkspacePath(input: string): PathResult {
  if (typeof input !== "string" || input === "") return { ok: false, message: "path is empty" };
  let path: string;
  try {
    path = decodeURIComponent(input);
  } catch {
    return { ok: false, message: "path has malformed percent-encoding" };
  }
  if (path === "") return { ok: false, message: "path is empty" };
  if (path.startsWith("/")) return { ok: false, message: "path must be relative (it starts with /)" };
  if (path.includes("\0")) return { ok: false, message: "path contains NUL" };
  if (path.includes("\\")) return { ok: false, message: "path contains a backslash" };
  // UTF-8 cannot encode a lone surrogate; refusing beats silently storing U+FFFD.
  if (LONE_SURROGATE.test(path)) return { ok: false, message: "path contains a lone UTF-16 surrogate" };
  const bytes = encoder.encode(path).byteLength;
  if (bytes > MAX_PATH_BYTES) return { ok: false, message: `path is ${bytes} bytes (at most ${MAX_PATH_BYTES})` };
  for (const segment of path.split("/")) {
    if (segment === "") return { ok: false, message: "path has an empty segment" };
    if (segment === "." || segment === "..") return { ok: false, message: `path has a "${segment}" segment` };
    const n = encoder.encode(segment).byteLength;
    if (n > MAX_SEGMENT_BYTES)
      return { ok: false, message: `path segment is ${n} bytes (at most ${MAX_SEGMENT_BYTES})` };
  }
  return { ok: true, path };
}

/**
 * The directory form for list_files / search_files: `undefined` or `""` is the
 * workspace root (returned as `""`); otherwise a workspace path, which may end
 * in a single `/` ("src/" names the same directory as "src").
 */
export function normalizeWorkspaceDir(input: string | undefined): PathResult {
  if (input === undefined || input === "") return { ok: true, path: "" };
  const trimmed = input.endsWith("/") && input.length > 1 ? input.slice(0, -1) : input;
  return normalizeWorkspacePath(trimmed);
}
