/** `<hw-context>`: what the next model call sends, against the compaction threshold and the window. */
import { html, nothing } from "lit";
import type { ContextView } from "../../src/client";
import { formatBytes, plural, pretty } from "./format";
import { TurnView } from "./turn-view";

class HwContext extends TurnView<ContextView> {
  static override properties = { ...TurnView.properties, lastSeq: { attribute: false } };
  declare lastSeq: number;

  protected override read() {
    return this.client.context(this.sessionId);
  }

  override render() {
    if (this.error) return html`<p class="error" role="alert">${this.error}</p>`;
    const c = this.data;
    if (!c) return html`<p class="muted">Loading the context…</p>`;
    const pct = (n: number) => `${((100 * n) / c.contextWindow).toFixed(1)}%`;
    const text = JSON.stringify(c.messages);
    const offloaded = (text.match(/archive:\/\/[0-9a-f]{64}/g) ?? []).length;
    const u = this.session?.usage;
    const cacheRate = u && u.cachedInputTokens > 0 && u.inputTokens > 0 ? u.cachedInputTokens / u.inputTokens : null;
    const used = c.estimatedTokens / c.threshold;
    const through = c.checkpoint?.throughSeq ?? 0;
    const head = Math.max(this.head, this.lastSeq);
    return html`<div class="context">
      <p>
        <strong>${c.estimatedTokens.toLocaleString()}</strong> tokens estimated for the next model call, of a
        compaction threshold of <strong>${c.threshold.toLocaleString()}</strong>
        (${(used * 100).toFixed(0)}%); window ${c.contextWindow.toLocaleString()}, ${c.maxOutputTokens.toLocaleString()}
        reserved for output.
      </p>
      <div
        class="meter"
        role="meter"
        aria-label="Context used"
        aria-valuemin="0"
        aria-valuemax=${c.threshold}
        aria-valuenow=${Math.min(c.estimatedTokens, c.threshold)}
        aria-valuetext=${`${c.estimatedTokens} of ${c.threshold} tokens before compaction`}
      >
        <div class="fill ${used > 0.9 ? "hot" : ""}" style="width:${pct(Math.min(c.estimatedTokens, c.contextWindow))}"></div>
        <div class="threshold" style="left:${pct(c.threshold)}" title="compaction threshold"></div>
        <div class="reserve" style="left:${pct(c.contextWindow - c.maxOutputTokens)}" title="reserved for output"></div>
      </div>
      <div class="meter-legend muted">
        <span><span class="swatch fill"></span>estimate</span>
        <span><span class="swatch threshold"></span>threshold: compaction starts here</span>
        <span><span class="swatch reserve"></span>output reserve</span>
      </div>
      <dl class="facts">
        <dt>Checkpoint waterline</dt>
        <dd>
          ${
            c.checkpoint
              ? html`events 1–${c.checkpoint.throughSeq} are summarised in checkpoint <code>${c.checkpoint.id}</code>;
                raw from seq ${c.rawFromSeq}`
              : html`no checkpoint yet: the whole log from seq ${c.rawFromSeq} is sent raw`
          }
          <div class="waterline" aria-hidden="true">
            <div class="summarised" style="width:${(head > 0 ? (100 * through) / head : 0).toFixed(1)}%"></div>
            <span class="muted">seq 1</span><span class="muted right">seq ${head}</span>
          </div>
        </dd>
        <dt>Offloaded results</dt>
        <dd>${plural(offloaded, "tool result")} replaced by an archive placeholder</dd>
        <dt>Prompt-cache hit rate</dt>
        <dd>
          ${
            cacheRate !== null
              ? html`${(cacheRate * 100).toFixed(1)}% of ${u!.inputTokens.toLocaleString()} input tokens were cached`
              : html`<span class="muted">not reported by this provider</span>`
          }
        </dd>
        <dt>Messages</dt>
        <dd>${plural(c.messages.length, "message")}, ${formatBytes(new TextEncoder().encode(text).length)}</dd>
      </dl>
      ${c.checkpoint ? html`<details><summary>Checkpoint summary</summary><pre>${c.checkpoint.summary}</pre></details>` : nothing}
      <details><summary>Messages as the next call sends them</summary><pre>${pretty(c.messages)}</pre></details>
    </div>`;
  }
}
customElements.define("hw-context", HwContext);
