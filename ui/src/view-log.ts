/** `<hw-log>`: the raw log a page at a time (seq, time, author, kind, digest), Verify and Export. */
import { html, LitElement, nothing } from "lit";
import { repeat } from "lit/directives/repeat.js";
import type { Event, EventsPage, HighwaterClient, VerifyResult } from "../../src/client";
import { eventKind } from "../../src/contract/event";
import { errorText, plural } from "./format";
import { download, handleAuth } from "./shell";

const LOG_PAGE = 100;

class HwLog extends LitElement {
  static override properties = {
    client: { attribute: false },
    sessionId: { attribute: false },
    head: { attribute: false },
    page: { state: true },
    error: { state: true },
    verify: { state: true },
  };
  declare client: HighwaterClient;
  declare sessionId: string;
  declare head: number;
  declare page: EventsPage | null;
  declare error: string;
  declare verify: "idle" | "running" | VerifyResult | string;
  #after = 0;

  constructor() {
    super();
    this.page = null;
    this.error = "";
    this.verify = "idle";
  }

  protected override createRenderRoot() {
    return this;
  }

  override willUpdate() {
    // The newest page, once the head is known.
    if (!this.page && this.head > 0 && this.#after === 0) void this.#load(null);
  }

  /** A page of the raw log: `after` null means the newest page. */
  async #load(after: number | null) {
    const start = after ?? Math.max(0, this.head - LOG_PAGE);
    this.#after = start || -1;
    try {
      this.page = await this.client.events(this.sessionId, start, LOG_PAGE);
      this.error = "";
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
    }
  }

  async #verify() {
    this.verify = "running";
    try {
      this.verify = await this.client.verify(this.sessionId);
    } catch (err) {
      this.verify = `verify failed: ${errorText(err)}`;
    }
  }

  async #export(e: MouseEvent) {
    e.preventDefault();
    try {
      const text = await this.client.exportNdjson(this.sessionId);
      download(`highwater-${this.sessionId.slice(0, 12)}.ndjson`, "application/x-ndjson", text);
    } catch (err) {
      if (!handleAuth(this, err)) this.error = `Export failed: ${errorText(err)}`;
    }
  }

  #verifyOut() {
    const v = this.verify;
    if (v === "idle") return nothing;
    if (v === "running") return html`<span class="verify" role="status">verifying…</span>`;
    if (typeof v === "string") return html`<span class="verify bad" role="status">${v}</span>`;
    return v.ok
      ? html`<span class="verify ok" role="status">✓ verified ${plural(v.highWater, "event")}, head <code>${v.headDigest.slice(0, 12)}…</code></span>`
      : html`<span class="verify bad" role="status">✗ ${plural(v.problems.length, "problem")}: ${v.problems.slice(0, 3).join("; ")}</span>`;
  }

  override render() {
    const p = this.page;
    const first = p?.events[0]?.seq ?? 0;
    const last = p?.events.at(-1)?.seq ?? 0;
    const head = Math.max(p?.highWater ?? 0, this.head);
    const at = Math.max(0, this.#after);
    return html`
      <div class="toolbar">
        <button type="button" @click=${this.#verify}>Verify</button>
        <a href=${`/v1/sessions/${this.sessionId}/export`} @click=${this.#export} download>Export</a>
        ${this.#verifyOut()}
      </div>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${
        p
          ? html`<div class="pager">
              <button type="button" ?disabled=${first <= 1} @click=${() => void this.#load(Math.max(0, at - LOG_PAGE))}>Older</button>
              <span class="muted">seq ${first}–${last} of ${head}</span>
              <button type="button" ?disabled=${last >= head} @click=${() => void this.#load(last)}>Newer</button>
              <button type="button" class="link" @click=${() => void this.#load(null)}>Latest</button>
            </div>
            <div class="table-wrap">
              <table class="log">
                <thead><tr><th>seq</th><th>time</th><th>author</th><th>kind</th><th>digest</th></tr></thead>
                <tbody>
                  ${repeat(
                    p.events,
                    (e) => e.seq,
                    (e: Event) => html`<tr data-seq=${e.seq}>
                      <td>${e.seq}</td>
                      <td><time datetime=${e.at}>${new Date(e.at).toLocaleTimeString()}</time></td>
                      <td>${e.author}</td>
                      <td><code>${eventKind(e)}</code>${e.modelVisibility === "hidden" ? html` <span class="muted">hidden</span>` : nothing}</td>
                      <td><code title=${e.digest}>${e.digest.slice(0, 12)}</code></td>
                    </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
          : html`<p class="muted">Loading the log…</p>`
      }
    `;
  }
}
customElements.define("hw-log", HwLog);
