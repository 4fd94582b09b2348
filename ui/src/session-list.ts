/** `<hw-session-list>`: the caller's sessions, refreshed while on screen (status, open turn, approvals). */
import { html, LitElement, nothing } from "lit";
import { repeat } from "lit/directives/repeat.js";
import type { HighwaterClient, Session } from "../../src/client";
import { errorText, modelLabel, plural, statusPill } from "./format";
import { handleAuth } from "./shell";

const LIST_EVERY_MS = 3_000;

class HwSessionList extends LitElement {
  static override properties = {
    client: { attribute: false },
    sessions: { state: true },
    next: { state: true },
    error: { state: true },
  };
  declare client: HighwaterClient;
  declare sessions: Session[] | null;
  declare next: string | undefined;
  declare error: string;
  #expanded = false;
  #firstPage = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.sessions = null;
    this.error = "";
  }

  protected override createRenderRoot() {
    return this;
  }

  override connectedCallback() {
    super.connectedCallback();
    void this.#load();
    this.#timer = setInterval(() => {
      if (document.visibilityState === "visible") void this.#load();
    }, LIST_EVERY_MS);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.#timer);
  }

  async #load(more = false) {
    try {
      const page = await this.client.listSessions(more && this.next ? { before: this.next } : {});
      if (more) {
        this.sessions = [...(this.sessions ?? []), ...page.sessions];
        this.next = page.next;
        this.#expanded = true;
      } else {
        // A refresh replaces the first page and keeps what "More" loaded after it.
        const fresh = new Set(page.sessions.map((s) => s.id));
        const rest = this.#expanded ? (this.sessions ?? []).slice(this.#firstPage).filter((s) => !fresh.has(s.id)) : [];
        this.sessions = [...page.sessions, ...rest];
        this.#firstPage = page.sessions.length;
        if (!this.#expanded) this.next = page.next;
      }
      this.error = "";
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
    }
  }

  override render() {
    const list = this.sessions;
    if (this.error && !list) return html`<p class="error" role="alert">${this.error}</p>`;
    if (!list) return html`<p class="muted">Loading…</p>`;
    if (list.length === 0)
      return html`<p class="muted empty">No sessions yet. Start one above: the Demo preset works offline, with no API key.</p>`;
    return html`<ul class="sessions" aria-label="Your sessions">
        ${repeat(
          list,
          (s) => s.id,
          (s) => html`<li data-id=${s.id}>
            <a href=${`/s/${s.id}`} data-nav>${s.title || "Untitled session"}</a>
            ${statusPill(s.status)} ${s.openTurn ? html`<span class="badge">turn open</span>` : nothing}
            ${s.forkedFrom ? html`<span class="badge fork">fork</span>` : nothing}
            ${s.channel ? html`<span class="badge channel">${s.channel.kind} · ${s.channel.name}</span>` : nothing}
            ${
              s.pendingApprovals.length
                ? html`<span class="badge approvals" data-state="waiting_approval">${plural(s.pendingApprovals.length, "approval")} waiting</span>`
                : nothing
            }
            ${modelLabel(s)}
            <span class="muted">${plural(s.highWater, "event")} · updated ${new Date(s.updatedAt).toLocaleString()}</span>
          </li>`,
        )}
        ${
          this.next
            ? html`<li><button type="button" class="link" @click=${() => void this.#load(true)}>More</button></li>`
            : nothing
        }
      </ul>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}`;
  }
}
customElements.define("hw-session-list", HwSessionList);
