/**
 * A tool call in the transcript: its name, source (`builtin`, `mcp:<server>`, `custom`), effect,
 * state and duration, collapsed; or, while it waits for a human, the approval card with the
 * whole arguments and the digest the decision is bound to (docs/API.md#approvals-bound-to-their-arguments).
 */
import { html, nothing, type TemplateResult } from "lit";
import type { PendingApproval, TranscriptItem } from "../../src/client";
import { argsDigest } from "../../src/contract/digest";
import type { SessionFold } from "./fold";
import { block, formatBytes, formatDuration, pretty } from "./format";
import { inputCard } from "./input-card";
import { memorySummary } from "./memory-card";
import type { SessionActions } from "./session-actions";

type ToolItem = Extract<TranscriptItem, { kind: "tool" }>;
type Approval = PendingApproval & { argsDigest: string };

/** The digest of the arguments as shown, once per request (hashing large arguments is not free). */
export class Digests {
  readonly #known = new Map<string, string>();

  of(requestId: string, args: unknown): string {
    const known = this.#known.get(requestId);
    if (known !== undefined) return known;
    const d = argsDigest(args);
    this.#known.set(requestId, d);
    return d;
  }
}

export function toolCard(
  item: ToolItem,
  fold: SessionFold,
  now: number,
  approval: Approval | undefined,
  digests: Digests,
  actions: SessionActions,
): TemplateResult {
  const call = fold.call(item.callId);
  const started = call?.startedAt;
  const dur = started !== undefined ? formatDuration((call?.endedAt ?? now) - started) : undefined;
  const args = pretty(item.args);
  const head = html`<code class="tool-name">${item.tool}</code>
    <span class="badge source" title="where the tool comes from">${fold.source(item.tool)}</span>
    ${skillBadge(item)}
    ${call?.effect ? html`<span class="badge effect" title="its effect, for recovery">${call.effect}</span>` : nothing}
    <span class="badge" data-state=${item.state}>${item.state.replace("_", " ")}</span>
    ${fold.source(item.tool) === "builtin" ? memorySummary(item.tool, item.args, item.response) : nothing}
    ${remoteBadge(item)}
    ${dur ? html`<span class="muted duration">${dur}${call?.endedAt === undefined ? "…" : ""}</span>` : nothing}
    ${
      item.recovery
        ? html`<span class="badge recovery">${item.recovery === "rerun" ? "re-run after restart" : "needs review"}</span>`
        : nothing
    }`;
  if (item.state === "waiting_input" && item.input && !item.input.answer) {
    const q = item.input;
    return html`<li class="item tool input-request" data-seq=${item.seq} data-state=${item.state}>
      <div class="tool-head">${head}</div>
      ${inputCard(q, (requestId, action, content) => void actions.answerInput(requestId, action, content))}
    </li>`;
  }
  if (!approval)
    return html`<li class="item tool" data-seq=${item.seq} data-state=${item.state}>
      <details>
        <summary class="tool-head">${head}</summary>
        ${block("Arguments", args)} ${item.response !== undefined ? block("Response", pretty(item.response)) : nothing}
      </details>
    </li>`;
  // The whole arguments, not a preview: this is what the decision is bound to. The digest sent
  // is the one computed here from the arguments shown, checked against the server's.
  const bytes = new TextEncoder().encode(JSON.stringify(item.args) ?? "").length;
  const digest = digests.of(approval.requestId, item.args);
  const mismatch = digest !== approval.argsDigest;
  return html`<li class="item tool approval-card" data-seq=${item.seq} data-state=${item.state}>
    <div class="tool-head">${head}</div>
    <div class="block">
      <span class="label">Arguments, ${formatBytes(bytes)} · digest <code>${approval.argsDigest.slice(0, 12)}…</code></span>
      <pre class="args" tabindex="0" aria-label="Arguments of ${item.tool}">${args}</pre>
    </div>
    ${
      mismatch
        ? html`<p class="error" role="alert">These arguments do not match the digest of the pending call: reload before deciding.</p>`
        : nothing
    }
    <div class="approval" role="group" aria-label=${`Approval for ${item.tool}`}>
      <span>This call needs your approval.</span>
      <button type="button" ?disabled=${mismatch} @click=${() => void actions.decide(approval.requestId, "approve", digest)}>Approve</button>
      <button type="button" class="danger" @click=${() => void actions.decide(approval.requestId, "reject", digest)}>Reject</button>
    </div>
  </li>`;
}

/** A `load_skill` card names the skill it loaded (and the file, when one). */
function skillBadge(item: ToolItem): TemplateResult | typeof nothing {
  if (item.tool !== "load_skill") return nothing;
  const args = (item.args ?? {}) as { name?: unknown; file?: unknown };
  if (typeof args.name !== "string") return nothing;
  const file = typeof args.file === "string" ? ` · ${args.file}` : "";
  return html`<span class="badge skill" title="the skill loaded">skill ${args.name}${file}</span>`;
}

/** A remote call's task (an A2A agent's, an MCP server's): where it runs, its id and its state. */
function remoteBadge(item: ToolItem): TemplateResult | typeof nothing {
  const r = item.remote;
  if (!r) return nothing;
  const where = Object.entries(r.target)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return html`<span class="badge remote" data-remote-state=${r.state} title=${`remote task ${r.taskId} (${where})`}
      >remote task ${r.state.replace("-", " ")}</span
    >${r.ask ? html`<span class="muted remote-ask">asks: ${r.ask}</span>` : nothing}`;
}
