import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FEATURES, type Feature, featuresDue } from "../../../src/features";
import { createApp } from "../../../src/http";
import { creationsOf, operationsOf } from "../../../src/session/feature";
import type { SqlLike } from "../../../src/storage/sql";
import { BUILTIN_TOOLS, buildStaticTools, defineTool } from "../../../src/tools";

const tool = (name: string) =>
  defineTool({ name, description: name, input: z.object({}), effect: "read", run: async () => "ok" });

describe("features mounted from the list handed down", () => {
  it("the registry holds the core's built-ins first, then each feature's tools in list order, then the deployment's", () => {
    const mine = tool("mine");
    const registry = buildStaticTools([mine], FEATURES);
    const names = Object.keys(registry);
    expect(names.slice(0, Object.keys(BUILTIN_TOOLS).length)).toEqual(Object.keys(BUILTIN_TOOLS));
    const featureTools = FEATURES.flatMap((f) => f.tools ?? []);
    expect(names.slice(Object.keys(BUILTIN_TOOLS).length, -1)).toEqual(featureTools.map((t) => t.name));
    for (const t of featureTools) expect(registry[t.name]).toBe(t);
    expect(names.at(-1)).toBe("mine");
  });

  it("a feature listed twice, or a tool name defined twice, throws at start-up naming it", () => {
    const a: Feature = { name: "alpha", tools: [tool("same")] };
    const b: Feature = { name: "beta", tools: [tool("same")] };
    expect(() => buildStaticTools([], [...FEATURES, a, a])).toThrow(/the feature "alpha" is listed twice/);
    expect(() => buildStaticTools([], [a, b])).toThrow(/\("beta"\): the tool "same" is defined twice/);
    expect(() => buildStaticTools([], [{ name: "gamma", tools: [tool("read_file")] }])).toThrow(
      /"gamma"\): the tool "read_file" is defined twice/,
    );
    expect(() => buildStaticTools([tool("same")], [a])).toThrow(/"same" is the name of a built-in tool/);
  });

  it("the app answers the routes of the features it is given, and only those", () => {
    const paths = new Set(createApp(FEATURES).routes.map((r) => r.path));
    for (const p of [
      "/v1/sessions/:id/inbox",
      "/v1/sessions/:id/triggers",
      "/v1/sessions/:id/runs",
      "/v1/sessions/:id/records",
      "/v1/sessions/:id/records/:topic",
      "/v1/sessions/:id/records/:topic/entries",
      "/v1/sessions/:id/fork",
      "/v1/sessions/:id/runs/:runId/resume",
    ])
      expect(paths).toContain(p);
    const bare = new Set(createApp([]).routes.map((r) => r.path));
    expect(bare).not.toContain("/v1/sessions/:id/records");
    // A run's wait is resumed through the work feature that owns the runs, not by the core edge.
    expect(bare).not.toContain("/v1/sessions/:id/runs/:runId/resume");
  });

  it("an object operation or creation named twice throws at start-up naming it", () => {
    const write = () => ({}) as never;
    const twice = (f: Feature) => [f, { ...f }];
    expect(() => operationsOf(twice({ name: "a", operations: { go: () => 1 } }))).toThrow(
      /the operation "a\/go" is defined twice/,
    );
    expect(() => creationsOf(twice({ name: "b", creations: { make: { write } } }))).toThrow(
      /the creation "b\/make" is defined twice/,
    );
    expect([...creationsOf(FEATURES).keys()]).toContain("fork/fork");
    expect([...operationsOf(FEATURES).keys()]).toEqual(expect.arrayContaining(["work/resume", "fork/source"]));
  });

  it("the alarm is due at the earliest time any feature asks for, or never", () => {
    const sql = {} as SqlLike;
    const at = (due: (number | null)[]) =>
      featuresDue(
        sql,
        due.map((d, i) => ({ name: `f${i}`, nextDue: (s: SqlLike) => (s === sql ? d : -1) })),
      );
    expect(at([])).toBe(null);
    expect(at([null, 30, 20])).toBe(20);
    expect(at([5, null])).toBe(5);
  });
});
