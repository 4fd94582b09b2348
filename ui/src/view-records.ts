/**
 * `<hw-records>`: the session's work records (docs/API.md#work-beyond-one-turn): each topic with its
 * revision and entry count, and one topic's current summary with the entries it does not cover.
 */
import { html, LitElement, nothing } from "lit";
import type { HighwaterClient, RecordTopic, RecordView } from "../../src/client";
import { errorText, plural } from "./format";
import { handleAuth } from "./shell";

class HwRecords extends LitElement {
  static override properties = {
    client: { attribute: false },
    sessionId: { attribute: false },
    turns: { attribute: false },
    written: { attribute: false },
    topics: { state: true },
    open: { state: true },
    error: { state: true },
  };
  declare client: HighwaterClient;
  declare sessionId: string;
  declare turns: number;
  /** Records written over HTTP so far: one more is a reason to read again. */
  declare written: number;
  declare topics: RecordTopic[] | null;
  declare open: { topic: string; view: RecordView | null; error?: string } | null;
  declare error: string;

  constructor() {
    super();
    this.topics = null;
    this.open = null;
    this.error = "";
  }

  protected override createRenderRoot() {
    return this;
  }

  override willUpdate(changed: Map<string, unknown>) {
    // The agent writes records during a turn (read again when it ends), scripts over HTTP at any time.
    if (changed.has("turns") || changed.has("written") || changed.has("sessionId")) void this.#load();
  }

  async #load() {
    try {
      this.topics = (await this.client.records(this.sessionId)).topics;
      this.error = "";
      if (this.open) void this.#show(this.open.topic, false);
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
    }
  }

  async #show(topic: string, reset = true) {
    if (reset) this.open = { topic, view: null };
    try {
      this.open = { topic, view: await this.client.record(this.sessionId, topic) };
    } catch (err) {
      if (!handleAuth(this, err)) this.open = { topic, view: null, error: errorText(err) };
    }
  }

  override render() {
    if (this.error) return html`<p class="error" role="alert">${this.error}</p>`;
    const topics = this.topics;
    if (!topics) return html`<p class="muted">Loading the records…</p>`;
    if (topics.length === 0)
      return html`<p class="muted empty">No work records yet: topics the agent or your scripts write appear here.</p>`;
    const o = this.open;
    const v = o?.view;
    return html`<div class="records">
      <ul class="topic-list" aria-label="Record topics">
        ${topics.map(
          (t) => html`<li data-topic=${t.topic}>
            <button type="button" class="link" aria-current=${o?.topic === t.topic ? "true" : "false"} @click=${() => void this.#show(t.topic)}>${t.topic}</button>
            <span class="muted">revision ${t.revision} · ${plural(t.entries, "entry", "entries")}</span>
          </li>`,
        )}
      </ul>
      ${
        o
          ? html`<article class="record" aria-label=${`Record ${o.topic}`}>
              <h2><code>${o.topic}</code>${v ? html` <span class="muted">revision ${v.revision}</span>` : nothing}</h2>
              ${o.error ? html`<p class="error">${o.error}</p>` : nothing}
              ${!v && !o.error ? html`<p class="muted">Loading…</p>` : nothing}
              ${
                v
                  ? html`<pre class="record-content">${v.content || "(no summary yet)"}</pre>
                      <h3>${v.uncovered.length ? `${plural(v.uncovered.length, "entry", "entries")} since this revision` : "Every entry is covered by this revision"}</h3>
                      <ol class="entries">
                        ${v.uncovered.map(
                          (e) =>
                            html`<li data-entry=${e.id}><span class="muted">#${e.id} · seq ${e.seq}</span> ${e.text}</li>`,
                        )}
                      </ol>`
                  : nothing
              }
            </article>`
          : html`<p class="muted">Open a topic to read it.</p>`
      }
    </div>`;
  }
}
customElements.define("hw-records", HwRecords);
