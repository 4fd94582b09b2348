import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The layers of docs/design.md#where-things-live, checked in every `npm test` (so in CI too):
// imports point to the same or a lower row, a feature folder is private, no value-import cycle,
// no module in src/ past 300 lines. The script prints what it refuses and exits 1.
describe("scripts/check-layers.mjs", () => {
  it("finds no violation in src/", () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
    let out = "";
    let failed = false;
    try {
      out = execFileSync(process.execPath, ["scripts/check-layers.mjs"], { cwd: root, encoding: "utf8" });
    } catch (err) {
      failed = true;
      out = String((err as { stdout?: string }).stdout ?? err);
    }
    expect(failed ? out : "").toBe("");
    expect(out).toMatch(/check-layers: 0 violations/);
  });
});
