import { describe, expect, it } from "vitest";
import { patchDelta } from "../../../src/runtime/patch";

const model = { provider: "demo" as const, name: "demo-1", contextWindow: 32_000, maxOutputTokens: 4096 };
const current = { title: "t", model, maxModelCallsPerTurn: 1000 };

describe("patchDelta (docs/API.md#sessions: a PATCH that changes nothing appends nothing)", () => {
  it.each<[string, Parameters<typeof patchDelta>[1], Record<string, unknown>]>([
    ["nothing", {}, {}],
    ["the same title", { title: "t" }, {}],
    ["the same model, keys in another order", { model: { ...model, name: "demo-1", provider: "demo" } }, {}],
    ["the same budget", { maxModelCallsPerTurn: 1000 }, {}],
    ["a new title only", { title: "u", maxModelCallsPerTurn: 1000 }, { title: "u" }],
    ["a cleared title", { title: null }, { title: null }],
    ["a new model", { model: { ...model, contextWindow: 64_000 } }, { model: { ...model, contextWindow: 64_000 } }],
    ["a new budget", { maxModelCallsPerTurn: 5 }, { maxModelCallsPerTurn: 5 }],
  ])("%s", (_name, input, expected) => {
    expect(patchDelta(current, input)).toEqual(expected);
  });
});
