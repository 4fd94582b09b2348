/**
 * `<hw-timeline>`: the session's model calls, tool calls, approvals and turns on one time axis,
 * and each closed turn with its trace (docs/API.md#traces): saved as JSON, or drawn here as
 * the same chart from the trace's own spans.
 */
import { html, LitElement, nothing } from "lit";
import { type HighwaterClient, HighwaterError } from "../../src/client";
import type { SessionFold } from "./fold";
import { errorText } from "./format";
import { downloadTrace, type SessionHost } from "./session-actions";
import { handleAuth } from "./shell";
import { timelineView } from "./timeline-chart";
import { type OtlpTrace, traceSpans } from "./trace";

type Shown = { turnId: string; trace: ReturnType<typeof traceSpans> | null; error?: string };

class HwTimeline extends LitElement {
  static override properties = {
    client: { attribute: false },
    sessionId: { attribute: false },
    fold: { attribute: false },
    rev: { attribute: false },
    now: { attribute: false },
    shown: { state: true },
    width: { state: true },
  };
  declare client: HighwaterClient;
  declare sessionId: string;
  declare fold: SessionFold;
  declare rev: number;
  declare now: number;
  declare shown: Shown | null;
  declare width: number;
  #resize = new ResizeObserver(() => {
    // The chart is drawn to fit the panel, never wider.
    this.width = Math.max(280, Math.min(this.clientWidth - 2 || 800, 1200));
  });

  constructor() {
    super();
    this.shown = null;
    this.width = 800;
  }

  protected override createRenderRoot() {
    return this;
  }

  override connectedCallback() {
    super.connectedCallback();
    this.#resize.observe(this);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.#resize.disconnect();
  }

  get #host(): SessionHost {
    return {
      client: this.client,
      id: this.sessionId,
      conn: null,
      setSession: () => {},
      report: (prefix, err) => {
        if (!handleAuth(this, err)) this.shown = { turnId: "", trace: null, error: `${prefix}: ${errorText(err)}` };
      },
    };
  }

  async #show(turnId: string) {
    this.shown = { turnId, trace: null };
    try {
      const trace = JSON.parse(await this.client.trace(this.sessionId, turnId)) as OtlpTrace;
      this.shown = { turnId, trace: traceSpans(trace) };
    } catch (err) {
      if (handleAuth(this, err)) return;
      const error =
        err instanceof HighwaterError && err.status === 404
          ? "This server has no trace for that turn."
          : errorText(err);
      this.shown = { turnId, trace: null, error };
    }
  }

  override render() {
    const s = this.shown;
    const chart =
      s?.trace && !s.error
        ? html`<p class="trace-shown">Trace of turn <code>${s.turnId}</code>, from its spans.
              <button type="button" class="link" @click=${() => {
                this.shown = null;
              }}>Back to the whole session</button></p>
            ${timelineView(s.trace.spans, s.trace.marks, this.now, this.width)}`
        : timelineView(this.fold.spans, this.fold.marks, this.now, this.width);
    const turns = this.fold.turns;
    return html`${chart}
      ${s?.error ? html`<p class="error" role="alert">${s.error}</p>` : nothing}
      ${s && !s.trace && !s.error ? html`<p class="muted" role="status">Loading the trace…</p>` : nothing}
      ${
        turns.length
          ? html`<h2>Traces</h2>
              <ul class="turn-traces" aria-label="Turns and their traces">
                ${turns.map(
                  (t) => html`<li data-turn=${t.turnId}>
                    <span class="muted">seq ${t.seq}</span> ${t.label} <span class="badge">${t.reason}</span>
                    <button type="button" class="link" @click=${() => void downloadTrace(this.#host, t.turnId)}>Download trace</button>
                    <button type="button" class="link" @click=${() => void this.#show(t.turnId)}>Show spans</button>
                  </li>`,
                )}
              </ul>`
          : nothing
      }`;
  }
}
customElements.define("hw-timeline", HwTimeline);
