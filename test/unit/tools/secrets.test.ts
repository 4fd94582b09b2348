import { describe, expect, it } from "vitest";
import {
  parseSecretHosts,
  redactSecrets,
  secretAllowedFor,
  secretHostsProblem,
  secretNamesInUse,
  substituteSecrets,
} from "../../../src/tools";

describe("substituteSecrets", () => {
  const lookup = (n: string) => ({ API_KEY: "sk-123", OTHER: "o" })[n];
  it("replaces each reference by its value", () => {
    expect(substituteSecrets("Bearer {{secret:API_KEY}}", lookup)).toEqual({ ok: true, text: "Bearer sk-123" });
    expect(substituteSecrets("{{secret:API_KEY}}/{{secret:OTHER}}", lookup)).toEqual({ ok: true, text: "sk-123/o" });
    expect(substituteSecrets("no refs", lookup)).toEqual({ ok: true, text: "no refs" });
  });
  it("names the first reference it cannot fill, malformed ones included", () => {
    expect(substituteSecrets("{{secret:API_KEY}} {{secret:NOPE}}", lookup)).toEqual({ ok: false, name: "NOPE" });
    expect(substituteSecrets("{{secret:bad-name}}", () => "v")).toEqual({ ok: false, name: "bad-name" });
    expect(substituteSecrets("{{secret:}}", () => "v")).toEqual({ ok: false, name: "" });
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence in strings and keys, at any depth, longest value first", () => {
    const value = {
      body: "echo: Bearer sk-123456 and sk-123456",
      headers: { "x-sk-123456": "sk-12345678" },
      list: ["sk-123456", 1, null, true],
    };
    expect(redactSecrets(value, { A: "sk-123456", B: "sk-12345678" })).toEqual({
      body: "echo: Bearer [secret:A] and [secret:A]",
      headers: { "x-[secret:A]": "[secret:B]" },
      list: ["[secret:A]", 1, null, true],
    });
  });
  it("leaves the value alone with no secrets, and ignores empty values", () => {
    const value = { a: "x" };
    expect(redactSecrets(value, {})).toBe(value);
    expect(redactSecrets(value, { E: "" })).toEqual({ a: "x" });
  });

  it("leaves values under 8 characters alone: they would mangle ordinary text", () => {
    expect(redactSecrets({ t: "about a table" }, { SHORT: "ab", SEVEN: "a table" })).toEqual({ t: "about a table" });
  });

  const S = 'sk/Ab+c"d é😀 1234&=?';
  const b64 = (t: string) => Buffer.from(t).toString("base64");
  const b64url = (t: string) => Buffer.from(t).toString("base64url");
  it.each([
    ["raw", `x ${S} y`],
    ["JSON-escaped", JSON.stringify({ t: S })],
    ["JSON-escaped with \\/", JSON.stringify({ t: S }).replaceAll("/", "\\/")],
    [
      "JSON-escaped as \\uXXXX",
      JSON.stringify(S).replace(
        /[\u0080-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`,
      ),
    ],
    ["percent-encoded", `https://x.test/?k=${encodeURIComponent(S)}`],
    ["percent-encoded, lowercase hex", encodeURIComponent(S).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())],
    ["form-encoded", new URLSearchParams({ q: S }).toString()],
    ["base64", b64(S)],
    ["base64 without padding", b64(S).replace(/=+$/, "")],
    ["base64url", b64url(S)],
    ["inside Basic auth", `Basic ${b64(`user:${S}`)}`],
    ["inside base64url at another offset", b64url(`u1:${S}:x`)],
  ])("redacts the %s form", (_form, text) => {
    const out = redactSecrets({ text, [text]: 1 }, { TOK: S }) as Record<string, unknown>;
    expect(out.text).toContain("[secret:TOK]");
    expect(Object.keys(out)[1]).toContain("[secret:TOK]");
    // Nothing of the secret's bytes is left to decode.
    expect(JSON.stringify(out)).not.toContain("1234");
  });
});

describe("HTTP_TOOL_SECRETS", () => {
  it("NAME=host1,host2: an entry without = is one more pattern of the name before it", () => {
    const hosts = parseSecretHosts("API_KEY=api.example.com,*.example.org, B=127.0.0.1:*,localhost:8080");
    expect(hosts).toEqual({ API_KEY: ["api.example.com", "*.example.org"], B: ["127.0.0.1:*", "localhost:8080"] });
    expect(secretAllowedFor(hosts, "API_KEY", new URL("https://a.example.org/"))).toBe(true);
    expect(secretHostsProblem("API_KEY=api.example.com,*.example.org")).toBeNull();
  });
  it.each([
    ["a pattern with no name before it", "api.example.com", /entry 1\): a host pattern must follow NAME=/],
    ["a bad name", "API_KEY=a.test,bad name=b.test", /entry 2\): a secret name must match/],
    ["a bad pattern", "API_KEY=a.test,https://b.test/x", /entry 2\): not a host pattern/],
    ["an empty pattern", "API_KEY=", /entry 1\): not a host pattern/],
  ])("refuses %s, naming the entry", (_what, csv, message) => {
    expect(secretHostsProblem(csv)).toMatch(message);
  });

  it("binds names to host patterns; a name may be listed twice", () => {
    const hosts = parseSecretHosts("API_KEY=api.example.com, LOCAL=127.0.0.1:*,API_KEY=*.example.org");
    expect(hosts).toEqual({ API_KEY: ["api.example.com", "*.example.org"], LOCAL: ["127.0.0.1:*"] });
    expect(secretAllowedFor(hosts, "API_KEY", new URL("https://api.example.com/v1"))).toBe(true);
    expect(secretAllowedFor(hosts, "API_KEY", new URL("https://a.example.org/"))).toBe(true);
    expect(secretAllowedFor(hosts, "API_KEY", new URL("https://evil.test/"))).toBe(false);
    expect(secretAllowedFor(hosts, "LOCAL", new URL("http://127.0.0.1:8080/"))).toBe(true);
    expect(secretAllowedFor(hosts, "UNLISTED", new URL("http://127.0.0.1:8080/"))).toBe(false);
    expect(secretAllowedFor(hosts, "constructor", new URL("http://127.0.0.1:8080/"))).toBe(false);
  });
  it("the names in use come from HTTP_TOOL_SECRETS and from MCP_SERVERS headers", () => {
    const env = {
      HTTP_TOOL_SECRETS: "API_KEY=api.example.com",
      MCP_SERVERS: JSON.stringify([
        { name: "a", url: "https://m.test/", headers: { authorization: "Bearer {{secret:MCP_TOKEN}}" } },
      ]),
    };
    expect(secretNamesInUse(env).sort()).toEqual(["API_KEY", "MCP_TOKEN"]);
    expect(secretNamesInUse({ MCP_SERVERS: "not json" })).toEqual([]);
  });
});
