import { describe, expect, it } from "vitest";
import { normalizeWorkspaceDir, normalizeWorkspacePath } from "../../../src/tools/paths";

const seg255 = "a".repeat(255);
const seg256 = "a".repeat(256);
// Five 200-byte segments with their slashes are 1005 bytes; 19 more make 1024.
const path1024 = `${`${"a".repeat(200)}/`.repeat(5)}${"b".repeat(19)}`;
const path1025 = `${path1024}c`;

describe("normalizeWorkspacePath", () => {
  const accepted: [string, string][] = [
    ["a.txt", "a.txt"],
    ["src/main.ts", "src/main.ts"],
    [".hidden", ".hidden"],
    ["a..b/c...", "a..b/c..."],
    ["my%20file.txt", "my file.txt"],
    ["a%2Fb", "a/b"],
    ["%252e%252e/x", "%2e%2e/x"], // decoded once only
    ["héllo/wörld", "héllo/wörld"],
    [seg255, seg255],
    ["é".repeat(127), "é".repeat(127)], // 254 bytes
  ];
  it.each(accepted)("accepts %j as %j", (input, expected) => {
    expect(normalizeWorkspacePath(input)).toEqual({ ok: true, path: expected });
  });

  const refused: [string, string, RegExp][] = [
    ["empty", "", /empty/],
    ["parent", "../x", /"\.\." segment/],
    ["inner parent", "a/../b", /"\.\." segment/],
    ["encoded parent", "%2e%2e/x", /"\.\." segment/],
    ["encoded dot", "a/%2E/b", /"\." segment/],
    ["dot", "./a", /"\." segment/],
    ["lone dot", ".", /"\." segment/],
    ["double slash", "a//b", /empty segment/],
    ["trailing slash", "a/", /empty segment/],
    ["absolute", "/etc/passwd", /relative/],
    ["encoded absolute", "%2Fetc/passwd", /relative/],
    ["backslash", "a\\b", /backslash/],
    ["encoded backslash", "a%5Cb", /backslash/],
    ["encoded NUL", "a%00b", /NUL/],
    ["raw NUL", "a\0b", /NUL/],
    ["malformed escape", "%zz", /percent-encoding/],
    ["truncated escape", "a%2", /percent-encoding/],
    ["bare percent", "100%", /percent-encoding/],
    ["invalid UTF-8 escape", "%C0%AF", /percent-encoding/],
    ["lone surrogate", "a\ud800b", /surrogate/],
    ["256-byte segment", seg256, /segment is 256 bytes/],
    ["256-byte multibyte segment", "é".repeat(128), /segment is 256 bytes/],
    ["256 bytes after decoding", "%61".repeat(256), /segment is 256 bytes/],
    ["1025-byte path", path1025, /path is 1025 bytes/],
  ];
  it.each(refused)("refuses %s", (_name, input, message) => {
    const r = normalizeWorkspacePath(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it("accepts a path of exactly 1024 bytes", () => {
    expect(new TextEncoder().encode(path1024).byteLength).toBe(1024);
    expect(normalizeWorkspacePath(path1024)).toEqual({ ok: true, path: path1024 });
    expect(new TextEncoder().encode(path1025).byteLength).toBe(1025);
  });
});

describe("normalizeWorkspaceDir", () => {
  it.each([
    [undefined, ""],
    ["", ""],
    ["src", "src"],
    ["src/", "src"],
    ["src/lib", "src/lib"],
  ])("reads %j as %j", (input, expected) => {
    expect(normalizeWorkspaceDir(input)).toEqual({ ok: true, path: expected });
  });

  it.each(["/", "/src", "..", "src//", "./src", "a/../b", "%zz"])("refuses %j", (input) => {
    expect(normalizeWorkspaceDir(input).ok).toBe(false);
  });
});
