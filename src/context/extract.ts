import type { Event } from "../log";
import { offloadOf } from "../projections";
import { CHECKPOINT_SECTIONS, type PlaceholderMark, parseSections } from "./checkpoint";
import { responseBytes } from "./waterline";

const FILE_TOOLS = new Set(["write_file", "edit_file", "delete_file"]);

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (max <= 1) return "";
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

/**
 * The deterministic checkpoint summary used when the model cannot summarise (it failed, or
 * kept answering without the sections): built from the events alone — the user's input, the
 * files written, the calls made and how they ended, offloaded results, the last texts —
 * merged with the previous summary's sections. Pure, always valid, at most `maxChars`.
 */
export function buildExtractSummary(input: {
  previous: string | null;
  /** The visible events being summarised, ascending. */
  events: Event[];
  /** Placeholders recorded by this compaction, so their refs appear under key files. */
  placeholders?: PlaceholderMark[];
  maxChars: number;
}): string {
  const { events } = input;
  const prev = input.previous ? parseSections(input.previous) : new Map<string, string>();
  const from = events[0]?.seq;
  const to = events.at(-1)?.seq;
  const range = from === undefined ? "no new events" : `events ${from}–${to}`;

  const users = events.flatMap((e) => (e.author === "user" && e.content?.type === "text" ? [e] : []));
  const texts = events.flatMap((e) =>
    e.author === "model" && e.content?.type === "text" && e.content.text ? [e] : [],
  );
  const calls = new Map<string, { name: string; args: unknown; seq: number }>();
  const counts = new Map<string, number>();
  const files = new Map<string, string>();
  const failures: string[] = [];
  const refs: string[] = [];
  for (const e of events) {
    const c = e.content;
    if (c?.type === "functionCall") {
      calls.set(c.callId, { name: c.name, args: c.args, seq: e.seq });
      counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
    } else if (c?.type === "functionResponse") {
      const call = calls.get(c.callId);
      const path = (call?.args as { path?: unknown } | undefined)?.path;
      if (c.status === "ok" && FILE_TOOLS.has(c.name) && typeof path === "string")
        files.set(path, `${c.name} at seq ${e.seq}`);
      if (c.status !== "ok") failures.push(`${c.name} (call ${c.callId}, seq ${e.seq}): ${c.status}`);
      const mark = offloadOf(e) ?? input.placeholders?.find((p) => p.callId === c.callId);
      if (mark) refs.push(`archive://${mark.sha256} (${c.name}, ${mark.bytes} bytes, seq ${e.seq})`);
      else if (responseBytes(c.response) > 4096)
        refs.push(`${c.name} result at seq ${e.seq} (${responseBytes(c.response)} bytes)`);
    }
  }

  const header = `[Deterministic extract of ${range}: the model's summary was not available. The full events are in the log.]`;
  // Each section gets an equal share of what the header and headings leave, so the whole fits in maxChars.
  const headings = CHECKPOINT_SECTIONS.reduce((n, t) => n + t.length + 6, 0);
  const share = Math.max(8, Math.floor((input.maxChars - header.length - headings - 2) / CHECKPOINT_SECTIONS.length));
  const section = (title: string, parts: (string | null | undefined)[], fallback: string) => {
    const body = parts.filter((p): p is string => !!p && p.trim().length > 0).join(" ");
    return `## ${title}\n${clip(body || fallback, share)}`;
  };
  const earlier = (title: string) => {
    const body = prev.get(title);
    return body ? `Earlier: ${body}` : null;
  };

  const lastUser = users.slice(-2).map((e) => `User (seq ${e.seq}): ${(e.content as { text: string }).text}`);
  const lastText = texts.at(-1);
  const callSummary = [...counts].map(([name, n]) => `${name} ×${n}`).join(", ");
  const body = [
    header,
    "",
    section("Goal and deliverable", [prev.get("Goal and deliverable"), ...lastUser], "Not stated in these events."),
    "",
    section(
      "Progress and next steps",
      [
        lastText ? `Last assistant text (seq ${lastText.seq}): ${(lastText.content as { text: string }).text}` : null,
        `${range}: ${users.length} user message(s), ${calls.size} tool call(s)${callSummary ? ` (${callSummary})` : ""}.`,
        "Next: continue from the events after this checkpoint.",
        earlier("Progress and next steps"),
      ],
      "No progress recorded.",
    ),
    "",
    section(
      "Constraints, decisions and facts",
      [prev.get("Constraints, decisions and facts")],
      "None recorded beyond the events in the log.",
    ),
    "",
    section(
      "Open items",
      [failures.length ? `Calls that did not succeed: ${failures.slice(-5).join("; ")}.` : null, earlier("Open items")],
      "None recorded.",
    ),
    "",
    section(
      "Key files and event references",
      [
        files.size ? `Files: ${[...files].map(([p, how]) => `${p} (${how})`).join(", ")}.` : null,
        refs.length ? `Large results: ${refs.slice(-10).join(", ")}.` : null,
        from !== undefined ? `Summarised ${range}.` : null,
        earlier("Key files and event references"),
      ],
      "None.",
    ),
  ].join("\n");
  // Only a maxChars too small for the header lands here; the sections themselves always fit.
  return body.length <= input.maxChars ? body : body.slice(body.indexOf("## "));
}
