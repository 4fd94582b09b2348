import { describe, expect, it } from "vitest";
import {
  buildExtractSummary,
  buildSummaryRequest,
  CHECKPOINT_SECTIONS,
  parseCheckpointPayload,
  parseSections,
  renderEvents,
  requestTokens,
  splitPieces,
  validateSummary,
} from "../../../src/context";
import { summarisePieces } from "../../../src/context/summarize";
import { createDemoProvider } from "../../../src/model";
import {
  type ModelConfig,
  type ModelPart,
  type ModelProvider,
  type ModelRequest,
  ProviderError,
} from "../../../src/model/types";
import { VALID_SUMMARY } from "../support/context-data";
import { newLog } from "../support/fixtures";

describe("checkpoint validation", () => {
  it("accepts the five sections in order, with or without a preamble", () => {
    expect(validateSummary(VALID_SUMMARY, 4000)).toEqual({ ok: true, summary: VALID_SUMMARY });
    const variant = VALID_SUMMARY.replace("## Open items", "### open items:").replace("## Goal", "# Goal");
    expect(validateSummary(variant, 4000).ok).toBe(true);
  });

  it.each([
    ["a missing section", VALID_SUMMARY.replace("## Open items\nNone.\n", ""), /Open items" is missing/],
    [
      "an empty section",
      VALID_SUMMARY.replace("Use British spelling.", "  "),
      /Constraints, decisions and facts" is empty/,
    ],
    [
      "sections out of order",
      VALID_SUMMARY.replace("## Goal and deliverable\nWrite a report in report.md.\n", "").concat(
        "\n## Goal and deliverable\nWrite a report.",
      ),
      /out of order/,
    ],
    ["an empty answer", "   ", /empty/],
    [
      "a section named only in passing",
      VALID_SUMMARY.replace("## Open items", "Open items are below"),
      /Open items" is missing/,
    ],
  ])("rejects %s", (_name, text, reason) => {
    const check = validateSummary(text, 4000);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });

  it("rejects a summary over its bound", () => {
    const check = validateSummary(`${VALID_SUMMARY}\n${"more ".repeat(200)}`, 1000);
    expect(check).toMatchObject({ ok: false });
    if (!check.ok) expect(check.reason).toMatch(/at most 1000/);
  });

  it("accepts what the demo model answers to a compaction request", async () => {
    const model: ModelConfig = { provider: "demo", name: "demo", contextWindow: 8000, maxOutputTokens: 2000 };
    const request = buildSummaryRequest({ model, previous: null, piece: "[seq 2] user: write notes", maxChars: 4000 });
    let text = "";
    for await (const p of createDemoProvider({ chunkDelayMs: 0 }).stream(request, new AbortController().signal))
      if (p.type === "text-delta") text += p.text;
    expect(validateSummary(text, 4000).ok).toBe(true);
  });

  it("reads a checkpoint payload back only when its shape is right", () => {
    const good = { id: "ckpt_1", throughSeq: 9, sourceDigest: "a".repeat(64), prevId: null, summary: VALID_SUMMARY };
    expect(parseCheckpointPayload(good)).toEqual({ ...good, placeholders: [] });
    expect(parseCheckpointPayload({ ...good, sourceDigest: "nope" })).toBeNull();
    expect(parseCheckpointPayload({ ...good, throughSeq: "9" })).toBeNull();
    expect(parseCheckpointPayload({ ...good, placeholders: [{ callId: "c" }] })).toBeNull();
  });
});

describe("the deterministic extract", () => {
  function session() {
    const b = newLog();
    b.user("Build a static site for the bakery with a menu page");
    b.answer("I'll start with the layout.");
    b.step("write_file", { path: "site/index.html", content: "<html>" }, { path: "site/index.html", bytes: 6 });
    b.step("write_file", { path: "site/menu.html", content: "<ul>" }, { path: "site/menu.html", bytes: 4 });
    const [bad] = b.answer(null, [{ name: "http_fetch", args: { url: "https://x.test" } }]);
    b.result(bad!, "http_fetch", { code: "not_allowed" }, "error");
    const [big] = b.answer(null, [{ name: "read_file", args: { path: "log.txt" } }]);
    b.result(big!, "read_file", "z".repeat(200_000), "ok", {
      stateDelta: { offload: { sha256: "b".repeat(64), bytes: 200_000, preview: "zzz" } },
    });
    b.answer("The menu page is drafted; next I add prices.");
    return b;
  }

  it("is valid, deterministic and names goals, files, failures, refs and the last text", () => {
    const events = session().visible;
    const a = buildExtractSummary({ previous: null, events, maxChars: 3000 });
    const b = buildExtractSummary({ previous: null, events, maxChars: 3000 });
    expect(a).toBe(b);
    expect(validateSummary(a, 3000).ok).toBe(true);
    const s = parseSections(a);
    expect(s.get("Goal and deliverable")).toContain("bakery");
    expect(s.get("Progress and next steps")).toContain("next I add prices");
    expect(s.get("Progress and next steps")).toContain("write_file ×2");
    expect(s.get("Open items")).toContain("http_fetch");
    expect(s.get("Key files and event references")).toContain("site/menu.html");
    expect(s.get("Key files and event references")).toContain(`archive://${"b".repeat(64)}`);
  });

  it("carries the previous summary's sections forward", () => {
    const events = session().visible.slice(5);
    const out = buildExtractSummary({ previous: VALID_SUMMARY, events, maxChars: 3000 });
    expect(parseSections(out).get("Constraints, decisions and facts")).toContain("British spelling");
    expect(parseSections(out).get("Goal and deliverable")).toContain("report.md");
  });

  it("stays within its bound however much there is", () => {
    const b = session();
    for (let i = 0; i < 300; i++) b.step("write_file", { path: `f/${i}.txt`, content: "." }, { ok: true });
    b.user("x".repeat(50_000));
    for (const max of [600, 1200, 3000, 16_000]) {
      const out = buildExtractSummary({
        previous: `${VALID_SUMMARY}\n${"y".repeat(20_000)}`,
        events: b.visible,
        maxChars: max,
      });
      expect(out.length).toBeLessThanOrEqual(max);
      expect(validateSummary(out, max).ok, `maxChars ${max}`).toBe(true);
    }
  });
});

describe("compaction requests", () => {
  const model: ModelConfig = { provider: "openai", name: "m", contextWindow: 6000, maxOutputTokens: 1500 };

  it("send no tools and end with a user message that asks for the summary", () => {
    const r = buildSummaryRequest({ model, previous: VALID_SUMMARY, piece: "[seq 5] user: hi", maxChars: 3000 });
    expect(r.tools).toEqual([]);
    const last = r.messages.at(-1)!;
    expect(last.role).toBe("user");
    expect(last.content).toMatch(/summary/);
    expect(last.content).toContain(VALID_SUMMARY);
    for (const t of CHECKPOINT_SECTIONS) expect(r.messages[0]!.content).toContain(`## ${t}`);
  });

  it("render events with their seq and offloaded results as refs", () => {
    const b = newLog();
    b.user("go");
    const [id] = b.answer(null, [{ name: "read_file", args: { path: "a" } }]);
    b.result(id!, "read_file", "q".repeat(10_000), "ok", {
      stateDelta: { offload: { sha256: "c".repeat(64), bytes: 10_000, preview: "qq" } },
    });
    const lines = renderEvents(b.visible);
    expect(lines[0]).toBe("[seq 1] user: go");
    expect(lines[2]).toContain(`archive://${"c".repeat(64)}`);
    expect(lines[2]!.length).toBeLessThan(300);
  });

  it("split into pieces that each fit, cutting only lines that alone are too long", () => {
    const lines = ["a".repeat(100), "b\n".repeat(300), "c".repeat(5000), "d"];
    const pieces = splitPieces(lines, 1000);
    for (const p of pieces) expect(JSON.stringify(p).length - 2).toBeLessThanOrEqual(1000);
    expect(pieces.join("").replace(/\n/g, "")).toBe(lines.join("").replace(/\n/g, ""));
  });

  function scripted(answers: (string | Error)[]): ModelProvider & { requests: ModelRequest[] } {
    const requests: ModelRequest[] = [];
    return {
      name: "openai",
      requests,
      async *stream(request: ModelRequest): AsyncGenerator<ModelPart> {
        requests.push(request);
        const a = answers.shift() ?? "no";
        if (a instanceof Error) throw a;
        yield { type: "text-delta", text: a };
        yield { type: "usage", inputTokens: requestTokens(request), outputTokens: 10 };
      },
    };
  }
  const signal = new AbortController().signal;

  it("are retried when an answer does not validate, each piece merged into the running summary", async () => {
    const p = scripted(["not a summary", VALID_SUMMARY, VALID_SUMMARY.replace("None.", "Piece two open item.")]);
    const out = await summarisePieces(
      { provider: p, signal },
      { model, previous: null, pieces: ["[seq 1] user: a", "[seq 2] user: b"], maxChars: 3000, budgetTokens: 4380 },
    );
    expect(out).toMatchObject({ ok: true });
    if (out.ok) expect(out.summary).toContain("Piece two open item.");
    expect(p.requests).toHaveLength(3);
    expect(p.requests[1]!.messages.at(-1)!.content).toContain("could not be used");
    expect(p.requests[2]!.messages.at(-1)!.content).toContain("Use British spelling."); // the running summary
    expect(out.usage.outputTokens).toBe(30);
    for (const r of p.requests) expect(requestTokens(r)).toBeLessThanOrEqual(4380);
  });

  it("give up after three answers that do not validate, or at once on an error that is not worth retrying", async () => {
    const bad = scripted(["x", "y", "z", VALID_SUMMARY]);
    const out = await summarisePieces(
      { provider: bad, signal },
      { model, previous: null, pieces: ["[seq 1] user: a"], maxChars: 3000, budgetTokens: 4380 },
    );
    expect(out.ok).toBe(false);
    expect(bad.requests).toHaveLength(3);
    // A failure worth retrying is never slept on here: it is the runtime's, retried from the alarm.
    const flaky = scripted([new ProviderError("busy", 503, true), VALID_SUMMARY]);
    await expect(
      summarisePieces(
        { provider: flaky, signal },
        { model, previous: null, pieces: ["p"], maxChars: 3000, budgetTokens: 4380 },
      ),
    ).rejects.toThrow("busy");
    expect(flaky.requests).toHaveLength(1);
    const denied = scripted([new ProviderError("bad key", 401, false), VALID_SUMMARY]);
    const d = await summarisePieces(
      { provider: denied, signal },
      { model, previous: null, pieces: ["p"], maxChars: 3000, budgetTokens: 4380 },
    );
    expect(d.ok).toBe(false);
    expect(denied.requests).toHaveLength(1);
  });

  it("are never sent over budget", async () => {
    const p = scripted([VALID_SUMMARY]);
    const out = await summarisePieces(
      { provider: p, signal },
      { model, previous: null, pieces: ["w".repeat(20_000)], maxChars: 3000, budgetTokens: 4380 },
    );
    expect(out.ok).toBe(false);
    expect(p.requests).toHaveLength(0);
  });
});
