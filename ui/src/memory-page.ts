/**
 * `<hw-memory>` at `/memory` (docs/API.md#memory): the token's memory, newest first or searched,
 * each entry with its topic, where it came from, and buttons to pin, unpin and forget it.
 */
import { html, LitElement, nothing } from "lit";
import type { HighwaterClient, MemoryEntry } from "../../src/client";
import { errorText } from "./format";

class HwMemory extends LitElement {
  static override properties = {
    client: { attribute: false },
    entries: { state: true },
    next: { state: true },
    query: { state: true },
    problem: { state: true },
  };
  declare client: HighwaterClient;
  declare entries: MemoryEntry[];
  declare next: string | null;
  declare query: string;
  declare problem: string;

  constructor() {
    super();
    this.entries = [];
    this.next = null;
    this.query = "";
    this.problem = "";
  }

  protected override createRenderRoot() {
    return this;
  }

  override connectedCallback() {
    super.connectedCallback();
    document.title = "Memory — highwater";
    void this.#load(false);
  }

  async #load(more: boolean) {
    try {
      const page = await this.client.listMemory({
        limit: 50,
        ...(this.query.trim() ? { q: this.query } : {}),
        ...(more && this.next ? { before: this.next } : {}),
      });
      this.entries = more ? [...this.entries, ...page.entries] : page.entries;
      this.next = page.next;
      this.problem = "";
    } catch (err) {
      this.problem = errorText(err);
    }
  }

  async #act(fn: () => Promise<unknown>) {
    try {
      await fn();
      await this.#load(false);
    } catch (err) {
      this.problem = errorText(err);
    }
  }

  #search(e: SubmitEvent) {
    e.preventDefault();
    this.query = (e.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>("#memory-q")!.value;
    void this.#load(false);
  }

  override render() {
    return html`<p><a href="/" data-nav>← Sessions</a></p>
      <h1>Memory</h1>
      <p class="muted">What sessions of this token remember. Pinned entries are shown at the start of every new session.</p>
      <form class="row" role="search" @submit=${this.#search}>
        <label for="memory-q">Search</label>
        <input id="memory-q" type="search" .value=${this.query} spellcheck="false" />
        <button type="submit">Search</button>
      </form>
      <p class="error" role="alert">${this.problem}</p>
      ${this.entries.length === 0 ? html`<p class="muted">Nothing remembered${this.query ? " matches" : " yet"}.</p>` : nothing}
      <ul class="memory-list">
        ${this.entries.map(
          (e) => html`<li class="item" data-id=${e.id}>
            <p>${e.topic ? html`<span class="badge">${e.topic}</span> ` : nothing}${e.text}</p>
            <p class="muted">
              ${"api" in e.source ? "added through the API" : html`from session <a href=${`/s/${e.source.sessionId}`} data-nav>${e.source.sessionId.slice(0, 8)}…</a> (seq ${e.source.seq})`}
              · ${new Date(e.createdAt).toLocaleString()}
            </p>
            <button type="button" @click=${() => void this.#act(() => this.client.pinMemory(e.id, !e.pinned))}>
              ${e.pinned ? "Unpin" : "Pin"}
            </button>
            <button type="button" class="danger" @click=${() => void this.#act(() => this.client.forgetMemory(e.id))}>Forget</button>
          </li>`,
        )}
      </ul>
      ${this.next ? html`<button type="button" @click=${() => void this.#load(true)}>More</button>` : nothing}`;
  }
}
customElements.define("hw-memory", HwMemory);
