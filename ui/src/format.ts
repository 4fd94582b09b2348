/** Small words and bits of markup every view uses: durations, sizes, plurals, pills. */
import { html, nothing, type TemplateResult } from "lit";
import { HighwaterError, type Session } from "../../src/client";

/** A duration for people: 850 ms, 12.3 s, 4 min 05 s, 2 h 10 min. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000)
    return `${Math.floor(ms / 60_000)} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
}

/** Size of a value as the card shows it: UTF-8 bytes of its JSON. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** "1 event", "2 events". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? word : many}`;
}

/**
 * Who wrote a user message, by its source (docs/API.md#work-beyond-one-turn): "You" for the page and the API,
 * else the source itself, e.g. `inbox:ci` as "inbox · ci", `trigger:nightly` as "trigger · nightly".
 */
export function authorLabel(role: "user" | "assistant", source: string | undefined): string {
  if (role === "assistant") return "Assistant";
  if (!source || source === "http" || source === "ws" || source.startsWith("ui:")) return "You";
  const i = source.indexOf(":");
  return i < 0 ? source : `${source.slice(0, i)} · ${source.slice(i + 1)}`;
}

export function errorText(err: unknown): string {
  return err instanceof HighwaterError ? `${err.code}: ${err.message}` : String(err);
}

export function pretty(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

const LONG_TEXT = 400;

export function block(label: string, text: string): TemplateResult {
  return text.length > LONG_TEXT || text.split("\n").length > 12
    ? html`<details class="block"><summary>${label} (${text.length} chars)</summary><pre>${text}</pre></details>`
    : html`<div class="block"><span class="label">${label}</span><pre>${text}</pre></div>`;
}

export function statusPill(status: Session["status"]): TemplateResult {
  return html`<span class="pill" data-status=${status}>${status.replace("_", " ")}</span>`;
}

export function modelLabel(s: Session): TemplateResult {
  return html`<span class="model"
    >${s.model.name}${
      s.model.provider === "demo"
        ? html`<span class="demo" title="highwater's built-in offline model: deterministic, no API key">demo model</span>`
        : nothing
    }</span
  >`;
}
