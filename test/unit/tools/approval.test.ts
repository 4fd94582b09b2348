import { describe, expect, it } from "vitest";
import { FEATURES } from "../../../src/features";
import {
  BUILTIN_TOOLS,
  buildStaticTools,
  callNeedsApproval,
  enabledTools,
  getTool,
  parseToolArgs,
  toolSpecs,
  validateApprovalRules,
} from "../../../src/tools";

const fetchTool = BUILTIN_TOOLS.http_fetch!;
/** The registry of the repository's deployment: the core's built-ins and the built-in features' tools. */
const REGISTRY = buildStaticTools([], FEATURES);

function parsed(tool: string, args: unknown) {
  const r = parseToolArgs(REGISTRY[tool]!, args);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.args;
}

describe("callNeedsApproval", () => {
  const cases: [string, { tool: string; match?: Record<string, string[]> }[], string, unknown, boolean][] = [
    ["no rules", [], "write_file", { path: "a", content: "" }, false],
    ["rule without match", [{ tool: "write_file" }], "write_file", { path: "a", content: "" }, true],
    ["rule for another tool", [{ tool: "delete_file" }], "write_file", { path: "a", content: "" }, false],
    ["empty match", [{ tool: "write_file", match: {} }], "write_file", { path: "a" }, true],
    ["match hit", [{ tool: "write_file", match: { path: ["a", "b"] } }], "write_file", { path: "b" }, true],
    ["match miss", [{ tool: "write_file", match: { path: ["a"] } }], "write_file", { path: "c" }, false],
    [
      "all keys must match",
      [{ tool: "http_fetch", match: { method: ["POST"], url: ["https://x.test/"] } }],
      "http_fetch",
      { method: "POST", url: "https://y.test/" },
      false,
    ],
    ["numbers compare as strings", [{ tool: "read_file", match: { offset: ["3"] } }], "read_file", { offset: 3 }, true],
    [
      "missing arg is not matched by a value",
      [{ tool: "read_file", match: { offset: ["1"] } }],
      "read_file",
      {},
      false,
    ],
    [
      "any rule suffices",
      [{ tool: "x" }, { tool: "read_file", match: { path: ["a"] } }],
      "read_file",
      { path: "a" },
      true,
    ],
    ["inherited keys are not args", [{ tool: "t", match: { toString: ["x"] } }], "t", {}, false],
  ];
  it.each(cases)("%s", (_name, rules, tool, args, expected) => {
    expect(callNeedsApproval(rules, tool, args)).toBe(expected);
  });

  it("sees http_fetch's method after the schema default and upper-casing", () => {
    const rules = [{ tool: "http_fetch", match: { method: ["GET"] } }];
    expect(callNeedsApproval(rules, "http_fetch", parsed("http_fetch", { url: "https://a.test/" }))).toBe(true);
    expect(
      callNeedsApproval(rules, "http_fetch", parsed("http_fetch", { url: "https://a.test/", method: "get" })),
    ).toBe(true);
    const post = [{ tool: "http_fetch", match: { method: ["POST", "PUT", "DELETE"] } }];
    expect(callNeedsApproval(post, "http_fetch", parsed("http_fetch", { url: "https://a.test/" }))).toBe(false);
    expect(
      callNeedsApproval(post, "http_fetch", parsed("http_fetch", { url: "https://a.test/", method: "post" })),
    ).toBe(true);
  });
});

describe("validateApprovalRules", () => {
  const names = Object.keys(BUILTIN_TOOLS);
  it("accepts rules naming enabled tools", () => {
    expect(
      validateApprovalRules([{ tool: "write_file" }, { tool: "http_fetch", match: { method: ["POST"] } }], names),
    ).toBe(null);
    expect(validateApprovalRules([], names)).toBe(null);
  });
  it("refuses a rule naming an unknown or disabled tool", () => {
    expect(validateApprovalRules([{ tool: "write_file" }, { tool: "rm_rf" }], names)).toMatch(/approvals\[1\].*rm_rf/);
    expect(validateApprovalRules([{ tool: "write_file" }], ["read_file"])).toMatch(/write_file/);
  });
});

describe("registry", () => {
  it("has the docs/API.md §5 tools with their effects", () => {
    const effects = Object.fromEntries(
      Object.values(REGISTRY).map((t) => [
        t.name,
        t.name === "http_fetch" ? null : t.effect(parsed(t.name, minimalArgs[t.name])),
      ]),
    );
    expect(effects).toEqual({
      list_files: "read",
      read_file: "read",
      search_files: "read",
      write_file: "write",
      edit_file: "write",
      delete_file: "write",
      http_fetch: null,
      read_archive: "read",
      wait_for: "idempotent",
      read_record: "read",
      write_record: "write",
      append_record_entry: "write",
      spawn_session: "idempotent",
      remember: "idempotent",
      recall: "read",
      forget: "write",
    });
    for (const [method, effect] of [
      ["GET", "read"],
      ["head", "read"],
      ["POST", "write"],
      ["put", "write"],
      ["PATCH", "write"],
      ["DELETE", "write"],
      ["OPTIONS", "write"],
    ])
      expect(fetchTool.effect(parsed("http_fetch", { url: "https://a.test/", method }))).toBe(effect);
    expect(fetchTool.effect(parsed("http_fetch", { url: "https://a.test/" }))).toBe("read");
  });

  it("looks tools up by name and filters enabled ones in registry order", () => {
    expect(getTool("read_file")?.name).toBe("read_file");
    expect(getTool("nope")).toBeUndefined();
    expect(getTool("constructor")).toBeUndefined();
    expect(enabledTools().map((t) => t.name)).toEqual(Object.keys(BUILTIN_TOOLS));
    expect(enabledTools(["http_fetch", "read_file", "unknown"]).map((t) => t.name)).toEqual([
      "read_file",
      "http_fetch",
    ]);
    expect(enabledTools([])).toEqual([]);
  });

  it("turns every schema into a plain JSON object schema", () => {
    for (const spec of toolSpecs(enabledTools())) {
      expect(spec.description.length).toBeGreaterThan(10);
      const p = spec.parameters;
      expect(p.type).toBe("object");
      expect(p.additionalProperties).toBe(false);
      expect(p).not.toHaveProperty("$schema");
      expect(typeof p.properties).toBe("object");
      expect(Object.getPrototypeOf(p)).toBe(Object.prototype);
      // Plain data: survives JSON unchanged.
      expect(JSON.parse(JSON.stringify(p))).toEqual(p);
    }
    const fetchSpec = toolSpecs([fetchTool])[0]!;
    expect(fetchSpec.parameters.required).toEqual(["url"]);
    expect((fetchSpec.parameters.properties as Record<string, { default?: string }>).method?.default).toBe("GET");
    const archive = toolSpecs([BUILTIN_TOOLS.read_archive!])[0]!;
    expect((archive.parameters.properties as Record<string, { enum?: string[] }>).mode?.enum).toEqual([
      "inspect",
      "query",
      "read",
    ]);
    // Deterministic: the same specs byte for byte, so prompt caches keep hitting.
    expect(JSON.stringify(toolSpecs(enabledTools()))).toBe(JSON.stringify(toolSpecs(enabledTools())));
    // A caller cannot change what the next request is given.
    const first = toolSpecs(enabledTools());
    const before = JSON.stringify(first);
    expect(() => {
      (first[0]!.parameters as Record<string, unknown>).type = "string";
    }).toThrow(TypeError);
    expect(JSON.stringify(toolSpecs(enabledTools()))).toBe(before);
  });

  it("reports schema violations as JSON-safe zod issues", () => {
    const cases: [string, unknown, string][] = [
      ["write_file", { path: "a" }, "invalid_type"],
      ["write_file", { path: "a", content: "x", extra: 1 }, "unrecognized_keys"],
      ["read_file", { path: "a", offset: 0 }, "too_small"],
      ["read_file", { path: "a", limit: 1.5 }, "invalid_type"],
      ["read_archive", { ref: "archive://x", mode: "peek" }, "invalid_value"],
      ["read_archive", { ref: "archive://x", mode: "read", limit: 16385 }, "too_big"],
      ["http_fetch", { url: "https://a.test/", method: "FROB" }, "invalid_value"],
      ["http_fetch", { url: "https://a.test/", body: "x" }, "custom"],
      ["http_fetch", { url: "https://a.test/", headers: { Host: "evil" } }, "custom"],
      ["http_fetch", { url: "https://a.test/", headers: { "bad name": "x" } }, "invalid_key"],
      ["search_files", { pattern: "" }, "too_small"],
      ["list_files", "not an object", "invalid_type"],
    ];
    for (const [tool, args, code] of cases) {
      const r = parseToolArgs(BUILTIN_TOOLS[tool]!, args);
      expect(r.ok, `${tool} ${JSON.stringify(args)}`).toBe(false);
      if (r.ok) continue;
      expect(r.issues.map((i) => i.code)).toContain(code);
      expect(JSON.parse(JSON.stringify(r.issues))).toEqual(r.issues);
    }
    expect(parseToolArgs(BUILTIN_TOOLS.list_files!, undefined)).toEqual({ ok: true, args: {} });
  });
});

const minimalArgs: Record<string, unknown> = {
  wait_for: { reason: "a reply" },
  list_files: {},
  read_file: { path: "a" },
  search_files: { pattern: "x" },
  write_file: { path: "a", content: "" },
  edit_file: { path: "a", oldText: "x", newText: "y" },
  delete_file: { path: "a" },
  http_fetch: { url: "https://a.test/" },
  read_archive: { ref: `archive://${"0".repeat(64)}`, mode: "inspect" },
  read_record: { topic: "t" },
  write_record: { topic: "t", content: "", expectedRevision: 0 },
  append_record_entry: { topic: "t", text: "x" },
  spawn_session: { goal: "g" },
  remember: { text: "x" },
  recall: { query: "x" },
  forget: { id: `mem_${"0".repeat(32)}` },
};
