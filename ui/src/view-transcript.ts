/**
 * `<hw-transcript>`: the transcript items (the server's fold, docs/API.md#reading-a-session) and the
 * text still streaming. An item's markup is kept until the item changes, so a long session
 * redraws only what moved.
 */
import { html, LitElement, nothing, type TemplateResult } from "lit";
import { repeat } from "lit/directives/repeat.js";
import type { Session, TranscriptItem } from "../../src/client";
import { describeRecovery } from "../../src/contract/transcript";
import type { SessionFold, Streamed } from "./fold";
import { authorLabel, plural } from "./format";
import { downloadTrace, type SessionActions } from "./session-actions";
import { Digests, toolCard } from "./tool-card";

/** Items drawn at once; earlier ones on request. */
const SHOWN = 400;

type Pending = Session["pendingApprovals"][number];

class HwTranscript extends LitElement {
  static override properties = {
    session: { attribute: false },
    fold: { attribute: false },
    streaming: { attribute: false },
    rev: { attribute: false },
    now: { attribute: false },
    actions: { attribute: false },
    showAll: { state: true },
  };
  declare session: Session | null;
  declare fold: SessionFold;
  declare streaming: Map<string, Streamed>;
  declare rev: number;
  declare now: number;
  declare actions: SessionActions;
  declare showAll: boolean;
  readonly #digests = new Digests();
  readonly #cache = new WeakMap<TranscriptItem, { key: string; tpl: TemplateResult }>();

  constructor() {
    super();
    this.showAll = false;
  }

  protected override createRenderRoot() {
    return this;
  }

  override updated() {
    // Follow the answer while the reader is at the bottom.
    if (this.streaming.size > 0 && window.innerHeight + window.scrollY >= document.body.scrollHeight - 160)
      window.scrollTo({ top: document.body.scrollHeight });
  }

  #item(i: TranscriptItem, pending: Map<string, Pending>): TemplateResult {
    const approval = i.kind === "tool" && i.requestId ? pending.get(i.requestId) : undefined;
    const call = i.kind === "tool" ? this.fold.call(i.callId) : undefined;
    // A running call shows a live duration; an approval card follows the pending set.
    const live = call?.startedAt !== undefined && call.endedAt === undefined ? this.now : 0;
    const key = `${this.fold.rev(i)}:${approval?.argsDigest ?? ""}:${live}:${call?.effect ?? ""}`;
    const hit = this.#cache.get(i);
    if (hit?.key === key) return hit.tpl;
    const tpl = this.#render(i, approval);
    this.#cache.set(i, { key, tpl });
    return tpl;
  }

  #render(item: TranscriptItem, approval: Pending | undefined): TemplateResult {
    switch (item.kind) {
      case "message": {
        const who = authorLabel(item.role, item.source);
        return html`<li class="item msg ${item.role}" data-seq=${item.seq} data-source=${item.source ?? nothing}>
          <div class="who">${who}</div>
          <div class="text">${item.text}</div>
        </li>`;
      }
      case "thinking":
        return html`<li class="item thinking" data-seq=${item.seq}>
          <details><summary>Thinking (${plural(item.text.length, "char")})</summary><pre>${item.text}</pre></details>
        </li>`;
      case "tool":
        return toolCard(item, this.fold, this.now, approval, this.#digests, this.actions);
      case "error":
        return html`<li class="item error" role="note" data-seq=${item.seq}>
          <strong>Error (${item.code}): </strong>${item.message}
        </li>`;
      case "recovery":
        return html`<li class="item recovery" data-seq=${item.seq}>
          ${describeRecovery(item)}
        </li>`;
      case "turn":
        return html`<li class="item turn" data-seq=${item.seq} data-reason=${item.reason}>
          turn ${item.reason}
          ${
            item.turnId
              ? html`<button type="button" class="link trace" @click=${() => void downloadTrace(this.actions.host, item.turnId!)}>Download trace</button>
                  <a class="trace-link" href="#timeline">timeline</a>`
              : nothing
          }
        </li>`;
      case "record":
        return html`<li class="item record" data-seq=${item.seq}>
          Work record <a href="#records" data-topic=${item.topic}><code>${item.topic}</code></a>:
          ${item.revision !== undefined ? `revision ${item.revision}` : `entry ${item.entry}`}
        </li>`;
      case "note":
        return html`<li class="item note" role="note" data-seq=${item.seq}>${item.text}</li>`;
      case "fork":
        return html`<li class="item fork" data-seq=${item.seq}>
          Forked from <a href="/s/${item.sessionId}" data-nav>${item.sessionId.slice(0, 12)}…</a> at seq ${item.throughSeq}
        </li>`;
    }
  }

  override render() {
    const pending = new Map(this.session?.pendingApprovals.map((p) => [p.requestId, p]));
    const all = this.fold.items;
    const items = this.showAll || all.length <= SHOWN ? all : all.slice(-SHOWN);
    const hidden = all.length - items.length;
    const stream = [...this.streaming.values()];
    return html`
      ${
        hidden > 0
          ? html`<button type="button" class="link earlier" @click=${() => {
              this.showAll = true;
            }}>Show ${plural(hidden, "earlier item")}</button>`
          : nothing
      }
      ${
        all.length === 0 && stream.length === 0
          ? html`<p class="muted empty">No messages yet. Write one below; the agent answers here as it works.</p>`
          : nothing
      }
      <ol class="transcript" aria-label="Transcript" aria-busy=${stream.length > 0 ? "true" : "false"}>
        ${repeat(
          items,
          (i) => `${i.kind}:${i.seq}`,
          (i) => this.#item(i, pending),
        )}
      </ol>
      <div class="streaming" aria-hidden="true">
        ${stream.map((s) =>
          s.kind === "text"
            ? html`<div class="item msg assistant streaming">
                <div class="who">Assistant${s.attempt > 1 ? html` <span class="muted">(attempt ${s.attempt})</span>` : nothing}</div>
                <div class="text">${s.text}</div>
              </div>`
            : html`<details class="item thinking streaming"><summary>Thinking…</summary><pre>${s.text}</pre></details>`,
        )}
      </div>
    `;
  }
}
customElements.define("hw-transcript", HwTranscript);
