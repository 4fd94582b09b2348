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

// One message's path (docs/design.md#one-message-route-to-frame): the modules a
// `POST /v1/sessions/:id/messages` runs through and what they import stay at most MESSAGE_PATH_FILES
// files, with no A -> B -> A hop between folders. The script exits 1 past the number or on a hop.
const MESSAGE_PATH_FILES = 25;

describe("scripts/message-path.mjs", () => {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
  const measure = (max: number) => {
    try {
      const out = execFileSync(process.execPath, ["scripts/message-path.mjs", "--max-files", String(max)], {
        cwd: root,
        encoding: "utf8",
      });
      return { exit: 0, out };
    } catch (err) {
      return { exit: (err as { status?: number }).status ?? -1, out: String((err as { stdout?: string }).stdout) };
    }
  };

  it(`a message crosses at most ${MESSAGE_PATH_FILES} files, with no folder hop`, () => {
    const { exit, out } = measure(MESSAGE_PATH_FILES);
    expect(out).toMatch(/A -> B -> A hops between top-level folders: 0/);
    expect(exit, out).toBe(0);
  });

  it("the measure refuses one file fewer than the path has", () => {
    const { out } = measure(MESSAGE_PATH_FILES);
    const files = Number(/: (\d+) files in/.exec(out)?.[1]);
    expect(files).toBeGreaterThan(0);
    expect(measure(files - 1).exit).toBe(1);
  });
});
