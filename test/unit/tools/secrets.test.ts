import { describe, expect, it } from "vitest";
import {
  parseSecretHosts,
  redactSecrets,
  secretAllowedFor,
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
      body: "echo: Bearer sk-123 and sk-123",
      headers: { "x-sk-123": "sk-12345" },
      list: ["sk-123", 1, null, true],
    };
    expect(redactSecrets(value, { A: "sk-123", B: "sk-12345" })).toEqual({
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
});

describe("HTTP_TOOL_SECRETS", () => {
  it("binds names to host patterns; a name may be listed twice", () => {
    const hosts = parseSecretHosts("API_KEY=api.example.com, LOCAL=127.0.0.1:*,API_KEY=*.example.org,bad name=x,=y");
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
