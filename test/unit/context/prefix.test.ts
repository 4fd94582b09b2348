import { describe, expect, it } from "vitest";
import { canonical } from "../../../src/log";
import { buildModelMessages, placeholderFor } from "../../../src/projections";
import { VALID_SUMMARY } from "../support/context-data";
import { newLog } from "../support/fixtures";

describe("prefix stability between compactions", () => {
  it("each request extends the previous one element by element, also with placeholders and held input", () => {
    const b = newLog();
    const marks = new Map<string, { sha256: string; bytes: number; preview: string }>();
    b.user("goal");
    const requests: string[][] = [];
    const snapshot = () =>
      requests.push(
        buildModelMessages({ system: "sys", summary: VALID_SUMMARY, events: b.visible, placeholders: marks }).map((m) =>
          canonical(m),
        ),
      );
    snapshot();
    for (let i = 0; i < 12; i++) {
      const ids = b.answer(i % 3 === 0 ? `step ${i}` : null, [{ name: "read_file" }, { name: "list_files" }]);
      b.result(ids[0]!, "read_file", "r".repeat(6000));
      if (i % 4 === 1) b.user(`input during step ${i}`);
      b.result(ids[1]!, "list_files", { files: [] });
      // A placeholder recorded for an older result (as a checkpoint would) is already in place when it is first shown.
      if (i === 5) marks.set(ids[0]!, { sha256: "d".repeat(64), bytes: 6000, preview: "rrr" });
      snapshot();
    }
    for (let k = 1; k < requests.length; k++) {
      const prev = requests[k - 1]!;
      expect(requests[k]!.slice(0, prev.length)).toEqual(prev);
      expect(requests[k]!.length).toBeGreaterThan(prev.length);
    }
    const last = buildModelMessages({ system: "sys", summary: VALID_SUMMARY, events: b.visible, placeholders: marks });
    const shown = last.flatMap((m) => (m.role === "tool" ? m.content : []));
    expect(shown.filter((p) => (p.output as { offloaded?: boolean }).offloaded)).toHaveLength(1);
  });

  it("shows an offloaded, a compaction-archived and an externalized result as placeholders", () => {
    const b = newLog();
    b.user("go");
    const a = b.step("read_file", {}, "x");
    const [c] = b.answer(null, [{ name: "read_file" }]);
    b.result(c!, "read_file", "y", "ok", {
      stateDelta: { offload: { sha256: "e".repeat(64), bytes: 40_000, preview: "yy" } },
    });
    const big = b.step("read_file", {}, { $blob: { sha256: "f".repeat(64), bytes: 600_000, mediaType: "text/plain" } });
    const marks = new Map([[a, { sha256: "a".repeat(64), bytes: 5000, preview: "xx" }]]);
    const msgs = buildModelMessages({ system: "s", summary: null, events: b.visible, placeholders: marks });
    const outputs = msgs.flatMap((m) => (m.role === "tool" ? m.content.map((p) => p.output) : []));
    expect(outputs).toEqual([
      placeholderFor("read_file", { sha256: "a".repeat(64), bytes: 5000, preview: "xx" }),
      placeholderFor("read_file", { sha256: "e".repeat(64), bytes: 40_000, preview: "yy" }),
      placeholderFor("read_file", { sha256: "f".repeat(64), bytes: 600_000, preview: "" }),
    ]);
    expect(outputs[2]).toMatchObject({ ref: `archive://${"f".repeat(64)}` });
    expect(big).toBeTruthy();
  });
});
