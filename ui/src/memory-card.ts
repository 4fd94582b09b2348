/**
 * What a memory tool card says in its head (docs/API.md#memory): what was remembered (and
 * whether pinned), what was searched and how much was found, which entry was forgotten.
 */
import { html, nothing, type TemplateResult } from "lit";

const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function memorySummary(tool: string, args: unknown, response: unknown): TemplateResult | typeof nothing {
  const a = (args ?? {}) as { text?: unknown; pinned?: unknown; query?: unknown; id?: unknown };
  const r = (response ?? {}) as { entries?: unknown[]; truncated?: unknown; code?: unknown };
  if (tool === "remember" && typeof a.text === "string")
    return html`<span class="memory-summary" title="remembered">“${clip(a.text)}”</span>
      ${a.pinned === true ? html`<span class="badge">pinned</span>` : nothing}`;
  if (tool === "recall" && typeof a.query === "string")
    return html`<span class="memory-summary" title="searched memory for">“${clip(a.query)}”</span>
      ${Array.isArray(r.entries) ? html`<span class="muted">${r.entries.length} found${r.truncated === true ? " (more left out)" : ""}</span>` : nothing}`;
  if (tool === "forget" && typeof a.id === "string")
    return html`<span class="memory-summary" title="forgot"><code>${a.id}</code></span>`;
  return nothing;
}
