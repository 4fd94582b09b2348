/**
 * `<hw-session>`: one session at `/s/<id>`. It holds the connection and folds each event once,
 * as it arrives (`SessionFold`); its views are elements that get the fold and a change counter,
 * and lit's update cycle redraws what changed.
 */
import { html, LitElement, nothing } from "lit";
import type { Connection, HighwaterClient, ServerFrame, Session } from "../../src/client";
import { HighwaterError } from "../../src/client";
import { applyDelta, SessionFold, type Streamed } from "./fold";
import { errorText, modelLabel, plural, statusPill } from "./format";
import { problemText, SessionActions, type SessionHost } from "./session-actions";
import { handleAuth } from "./shell";
import "./composer";
import "./recovery-banner";
import "./view-context";
import "./view-files";
import "./view-log";
import "./view-records";
import "./view-runs";
import "./view-timeline";
import "./view-transcript";

/** The page folds at most this many recent events, like `GET /transcript`. */
const WINDOW = 5_000;

export type View = "transcript" | "context" | "log" | "files" | "runs" | "records" | "timeline";
const VIEWS: { id: View; label: string }[] = [
  { id: "transcript", label: "Transcript" },
  { id: "context", label: "Context" },
  { id: "log", label: "Log" },
  { id: "files", label: "Files" },
  { id: "runs", label: "Runs" },
  { id: "records", label: "Records" },
  { id: "timeline", label: "Timeline" },
];

const viewFromHash = (): View => {
  const h = location.hash.slice(1);
  return VIEWS.some((v) => v.id === h) ? (h as View) : "transcript";
};

class HwSession extends LitElement implements SessionHost {
  static override properties = {
    client: { attribute: false },
    sessionId: { attribute: false },
    session: { state: true },
    rev: { state: true },
    view: { state: true },
    connState: { state: true },
    problem: { state: true },
    loadError: { state: true },
    now: { state: true },
  };
  declare client: HighwaterClient;
  declare sessionId: string;
  declare session: Session | null;
  /** Bumped by every frame: the views' signal that the fold or the stream moved. */
  declare rev: number;
  declare view: View;
  declare connState: string;
  declare problem: string;
  declare loadError: string;
  declare now: number;
  fold = new SessionFold();
  readonly streaming = new Map<string, Streamed>();
  readonly actions = new SessionActions(this);
  conn: Connection | null = null;
  #left = false;
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.session = null;
    this.rev = 0;
    this.view = viewFromHash();
    this.connState = "connecting";
    this.problem = "";
    this.loadError = "";
    this.now = Date.now();
  }

  get id(): string {
    return this.sessionId;
  }

  protected override createRenderRoot() {
    return this;
  }

  /**
   * Lit's hook for when an update runs: at the next frame, so a burst of frames (a replay, a
   * fast stream) is drawn once per frame rather than once per frame received.
   */
  protected override async scheduleUpdate(): Promise<void> {
    await new Promise((resolve) => requestAnimationFrame(resolve));
    super.scheduleUpdate();
  }

  protected override update(changed: Map<string, unknown>) {
    const t = performance.now();
    super.update(changed);
    // Set by the browser tests: how long a draw takes, the views' own updates included.
    const draws = (window as { __hwDraws?: number[] }).__hwDraws;
    if (draws) void this.updateComplete.then(() => draws.push(performance.now() - t));
  }

  protected override async getUpdateComplete(): Promise<boolean> {
    const done = await super.getUpdateComplete();
    await Promise.all([...this.querySelectorAll<LitElement>(".panel > *, hw-composer")].map((e) => e.updateComplete));
    return done;
  }

  #onHash = () => {
    this.view = viewFromHash();
  };

  override connectedCallback() {
    super.connectedCallback();
    this.#left = false;
    window.addEventListener("hashchange", this.#onHash);
    window.addEventListener("online", this.#onHash);
    window.addEventListener("offline", this.#onHash);
    // Open tool calls and the timeline show time passing; the connection label follows retries.
    this.#ticker = setInterval(() => {
      const running = this.fold.items.some((i) => i.kind === "tool" && i.state === "running");
      if (this.view === "timeline" || this.connState !== "open" || running) this.now = Date.now();
    }, 1000);
    void this.#start();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.#left = true;
    this.conn?.close();
    this.conn = null;
    clearInterval(this.#ticker);
    window.removeEventListener("hashchange", this.#onHash);
    window.removeEventListener("online", this.#onHash);
    window.removeEventListener("offline", this.#onHash);
  }

  async #start() {
    try {
      const first = await this.client.getSession(this.sessionId);
      if (this.#left) return;
      this.setSession(first);
      this.conn = this.client.connect(this.sessionId, {
        after: Math.max(0, first.highWater - WINDOW),
        onFrame: (f) => this.#onFrame(f),
        onState: (s) => {
          this.connState = s;
        },
        onFatal: (err) => this.report("Disconnected", err),
      });
    } catch (err) {
      if (handleAuth(this, err)) return;
      this.loadError = err instanceof HighwaterError && err.status === 404 ? "No such session." : errorText(err);
    }
  }

  setSession(s: Session) {
    this.session = s;
    document.title = `${s.title || "Untitled session"} — highwater`;
  }

  report(prefix: string, err: unknown) {
    if (!handleAuth(this, err)) this.problem = problemText(prefix, err);
  }

  #onFrame(f: ServerFrame) {
    if (f.type === "ready" || f.type === "session") {
      // A replay follows `ready`: whatever was streaming is superseded by it.
      if (f.type === "ready") this.streaming.clear();
      this.setSession(f.session);
    } else if (f.type === "event") {
      const e = f.event;
      this.fold.add(e);
      if (e.invocationId && (e.content?.type === "text" || e.content?.type === "thinking"))
        this.streaming.delete(`${e.invocationId}:${e.content.type}`);
      if (e.actions?.turnClose) this.streaming.clear();
    } else if (f.type === "delta") applyDelta(this.streaming, f);
    else if (f.type === "error") this.problem = `${f.error.code}: ${f.error.message}`;
    this.rev++;
  }

  #select(v: View, focus = false) {
    if (v === this.view) return;
    history.replaceState(null, "", v === "transcript" ? location.pathname : `#${v}`);
    this.view = v;
    if (focus) void this.updateComplete.then(() => this.querySelector<HTMLButtonElement>(`#tab-${v}`)?.focus());
  }

  /** Arrow keys move between tabs (WAI-ARIA tabs pattern). */
  #tabKeys(e: KeyboardEvent) {
    const i = VIEWS.findIndex((v) => v.id === this.view);
    const n = VIEWS.length;
    const next = { ArrowRight: (i + 1) % n, ArrowLeft: (i + n - 1) % n, Home: 0, End: n - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    this.#select(VIEWS[next]!.id, true);
  }

  #connLabel() {
    // "offline" only when the browser says so or attempts keep failing: never "live" on a dead link.
    const s = this.connState;
    const offline = s !== "open" && (!navigator.onLine || (this.conn?.retries ?? 0) >= 3);
    const shown = s === "open" ? "live" : offline ? "offline" : s === "reconnecting" ? "reconnecting" : "connecting";
    const text = {
      live: "● live",
      offline: "○ offline — retrying",
      reconnecting: "◌ reconnecting…",
      connecting: "◌ connecting…",
    }[shown];
    return html`<span class="conn" role="status" data-state=${shown}>${text}</span>`;
  }

  #lineage(s: Session) {
    const f = s.forkedFrom;
    if (f)
      return html`<span class="badge fork lineage">fork of
        <a href="/s/${f.sessionId}" data-nav title=${f.sessionId}>${f.sessionId.slice(0, 12)}…</a> at seq ${f.throughSeq}</span>`;
    if (s.parentId)
      return html`<span class="badge child lineage">sub-session of
        <a href="/s/${s.parentId}" data-nav title=${s.parentId}>${s.parentId.slice(0, 12)}…</a></span>`;
    return nothing;
  }

  /** A channel-born session: the platform, the channel and its thread (docs/API.md#channels). */
  #channel(s: Session) {
    const c = s.channel;
    if (!c) return nothing;
    const platform = c.kind === "slack" ? "Slack" : "Telegram";
    const thread = c.thread.length > 24 ? `${c.thread.slice(0, 24)}…` : c.thread;
    return html`<span class="badge channel" title=${`${platform} channel ${c.name}, thread ${c.thread}`}
      >${platform} · ${c.name} · thread
      ${c.link ? html`<a href=${c.link} rel="noopener">${thread}</a>` : thread}</span
    >`;
  }

  override render() {
    if (this.loadError)
      return html`<a href="/" data-nav class="back">← Sessions</a>
        <p class="error" role="alert">${this.loadError}</p>`;
    const s = this.session;
    const count = Math.max(s?.highWater ?? 0, this.fold.lastSeq);
    const p = s?.placement;
    const placement = [p?.jurisdiction && `jurisdiction ${p.jurisdiction}`, p?.locationHint && `near ${p.locationHint}`]
      .filter(Boolean)
      .join(" · ");
    const common = { client: this.client, id: this.sessionId };
    return html`
      <a href="/" data-nav class="back">← Sessions</a>
      <header class="session-head">
        <h1>${s ? s.title || "Untitled session" : "Session"}</h1>
        <div class="meta">
          ${s ? statusPill(s.status) : nothing} ${s ? modelLabel(s) : nothing} ${s ? this.#lineage(s) : nothing}
          ${s ? this.#channel(s) : nothing}
          <span class="muted count" aria-live="off">${plural(count, "event")}</span>
          ${placement ? html`<span class="muted placement">${placement}</span>` : nothing} ${this.#connLabel()}
        </div>
      </header>
      ${
        s?.recoveryNotice
          ? html`<hw-recovery-banner .notice=${s.recoveryNotice} .fold=${this.fold} .rev=${this.rev} .actions=${this.actions}></hw-recovery-banner>`
          : nothing
      }
      <p class="error" role="alert">${this.problem}</p>
      <div class="tabs" role="tablist" aria-label="Session views" @keydown=${this.#tabKeys}>
        ${VIEWS.map(
          (v) => html`<button
            type="button"
            role="tab"
            id=${`tab-${v.id}`}
            aria-controls=${`panel-${v.id}`}
            aria-selected=${v.id === this.view ? "true" : "false"}
            tabindex=${v.id === this.view ? "0" : "-1"}
            @click=${() => this.#select(v.id)}
          >${v.label}</button>`,
        )}
      </div>
      <section class="panel" role="tabpanel" id=${`panel-${this.view}`} aria-labelledby=${`tab-${this.view}`}>
        ${this.#panel(common)}
      </section>
      <hw-composer .session=${s} .actions=${this.actions} .sessionId=${this.sessionId}></hw-composer>
    `;
  }

  #panel(c: { client: HighwaterClient; id: string }) {
    const head = Math.max(this.session?.highWater ?? 0, this.fold.lastSeq);
    // The views that read the server's state follow each turn's end.
    const turns = this.fold.turns.length;
    switch (this.view) {
      case "transcript":
        return html`<hw-transcript .session=${this.session} .fold=${this.fold} .streaming=${this.streaming} .rev=${this.rev} .now=${this.now} .actions=${this.actions}></hw-transcript>`;
      case "context":
        return html`<hw-context .client=${c.client} .sessionId=${c.id} .turns=${turns} .session=${this.session} .head=${head} .lastSeq=${this.fold.lastSeq}></hw-context>`;
      case "log":
        return html`<hw-log .client=${c.client} .sessionId=${c.id} .head=${head}></hw-log>`;
      case "files":
        return html`<hw-files .client=${c.client} .sessionId=${c.id} .turns=${turns} .head=${head}></hw-files>`;
      case "runs":
        return html`<hw-runs .client=${c.client} .sessionId=${c.id} .turns=${turns} .session=${this.session} .head=${head}></hw-runs>`;
      case "records":
        return html`<hw-records .client=${c.client} .sessionId=${c.id} .turns=${turns} .written=${this.fold.items.filter((i) => i.kind === "record").length}></hw-records>`;
      case "timeline":
        return html`<hw-timeline .client=${c.client} .sessionId=${c.id} .fold=${this.fold} .rev=${this.rev} .now=${this.now}></hw-timeline>`;
    }
  }
}
customElements.define("hw-session", HwSession);
