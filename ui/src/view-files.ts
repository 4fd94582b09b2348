/** `<hw-files>`: the workspace's files, and one file's content. */
import { html, LitElement, nothing } from "lit";
import type { FileEntry, HighwaterClient } from "../../src/client";
import { errorText, formatBytes } from "./format";
import { handleAuth } from "./shell";

type Open = { path: string; content: string | null; error?: string };

class HwFiles extends LitElement {
  static override properties = {
    client: { attribute: false },
    sessionId: { attribute: false },
    turns: { attribute: false },
    head: { attribute: false },
    files: { state: true },
    next: { state: true },
    error: { state: true },
    open: { state: true },
  };
  declare client: HighwaterClient;
  declare sessionId: string;
  declare turns: number;
  declare head: number;
  declare files: FileEntry[] | null;
  declare next: string | undefined;
  declare error: string;
  declare open: Open | null;

  constructor() {
    super();
    this.files = null;
    this.error = "";
    this.open = null;
  }

  protected override createRenderRoot() {
    return this;
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has("turns") || changed.has("sessionId")) void this.#load();
  }

  async #load(more = false) {
    try {
      const page = await this.client.files(this.sessionId, more && this.next ? { after: this.next } : {});
      this.files = more && this.files ? [...this.files, ...page.files] : page.files;
      this.next = page.next;
      this.error = "";
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
    }
  }

  async #show(path: string) {
    this.open = { path, content: null };
    try {
      this.open = { path, content: await this.client.file(this.sessionId, path) };
    } catch (err) {
      if (!handleAuth(this, err)) this.open = { path, content: null, error: errorText(err) };
    }
  }

  override render() {
    if (this.error) return html`<p class="error" role="alert">${this.error}</p>`;
    const files = this.files;
    if (!files) return html`<p class="muted">Loading the workspace…</p>`;
    if (files.length === 0)
      return html`<p class="muted empty">The workspace is empty: files the agent writes appear here.</p>`;
    const o = this.open;
    return html`<div class="files">
      <ul class="file-list" aria-label="Workspace files">
        ${files.map(
          (f) => html`<li>
            <button type="button" class="link" aria-current=${o?.path === f.path ? "true" : "false"} @click=${() => void this.#show(f.path)}>${f.path}</button>
            <span class="muted">${formatBytes(f.bytes)} · ${new Date(f.updatedAt).toLocaleString()}</span>
          </li>`,
        )}
        ${this.next ? html`<li><button type="button" class="link" @click=${() => void this.#load(true)}>More</button></li>` : nothing}
      </ul>
      ${
        o
          ? html`<article class="file" aria-label=${o.path}>
              <h2><code>${o.path}</code></h2>
              ${
                o.error
                  ? html`<p class="error">${o.error}</p>`
                  : o.content === null
                    ? html`<p class="muted">Loading…</p>`
                    : html`<pre class="file-content">${o.content}</pre>`
              }
            </article>`
          : html`<p class="muted">Open a file to read it.</p>`
      }
    </div>`;
  }
}
customElements.define("hw-files", HwFiles);
