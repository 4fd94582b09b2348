/**
 * One session at `/s/<id>`: the live transcript, and the Context, Log, Files and Timeline
 * views. Events arrive once each, in order, from the typed client's connection and are folded
 * incrementally (`SessionFold`); lit-html re-renders only items whose `rev` changed.
 */
import { html, nothing, render, type TemplateResult } from "lit-html";
import { repeat } from "lit-html/directives/repeat.js";
import {
  type Connection,
  type ContextView,
  type Event,
  type EventsPage,
  type FileEntry,
  type HighwaterClient,
  HighwaterError,
  type Run,
  type ServerFrame,
  type Session,
  type Trigger,
  type VerifyResult,
} from "../../src/client";
import { argsDigest } from "../../src/contract/digest";
import { eventKind } from "../../src/contract/kinds";
import { applyDelta, formatBytes, formatDuration, SessionFold, type ShownItem, type Streamed } from "./fold";
import { timelineView } from "./timeline";

/** The page folds at most this many recent events, like `GET /transcript`. */
const WINDOW = 5_000;
/** Items drawn at once; earlier ones on request. */
const SHOWN = 400;
const LOG_PAGE = 100;
const LONG_TEXT = 400;

export type View = "transcript" | "context" | "log" | "files" | "runs" | "timeline";
const VIEWS: { id: View; label: string }[] = [
  { id: "transcript", label: "Transcript" },
  { id: "context", label: "Context" },
  { id: "log", label: "Log" },
  { id: "files", label: "Files" },
  { id: "runs", label: "Runs" },
  { id: "timeline", label: "Timeline" },
];

type Wait = { runId: string; waitId: string; kind: string; reason?: string; modelCalls?: number } | null;

/** What a wait is for, in words: the step budget says how many calls the turn has used (issue 14). */
function waitText(wait: NonNullable<Wait>, budget: number | undefined): string {
  if (wait.kind === "budget")
    return `Paused at the step budget: ${wait.modelCalls ?? "?"} of ${budget ?? "?"} model calls used this turn.`;
  if (wait.kind === "child") return "Waiting for a sub-session to finish.";
  return `Waiting${wait.reason ? `: ${wait.reason}` : " for a resume"}.`;
}

export type SessionPageDeps = {
  client: HighwaterClient;
  id: string;
  root: HTMLElement;
  handleAuth: (err: unknown) => boolean;
  errorText: (err: unknown) => string;
  randomKey: () => string;
  /** A message to prefill the composer with (the demo preset's task). */
  draft?: string;
};

/** Mounts the session page; returns the function that leaves it. */
export function mountSession(deps: SessionPageDeps): () => void {
  const { client, id, root, handleAuth, errorText } = deps;
  const fold = new SessionFold();
  const streaming = new Map<string, Streamed>();
  const itemCache = new Map<string, { rev: number; actionable: boolean; tpl: TemplateResult }>();
  const digests = new Map<string, string>();
  let session: Session | null = null;
  let conn: Connection | null = null;
  let connState: string = "connecting";
  let loadError: string | null = null;
  let problem = "";
  let frame = 0;
  let left = false;
  let showAll = false;
  let view: View = viewFromHash();
  let sending = false;
  let draft = deps.draft ?? "";

  // Lazily loaded views.
  let context: ContextView | null = null;
  let contextError = "";
  let contextAt = -1;
  let logPage: EventsPage | null = null;
  let logAfter: number | null = null;
  let logError = "";
  let verifyState: "idle" | "running" | VerifyResult | string = "idle";
  let files: FileEntry[] | null = null;
  let filesNext: string | undefined;
  let filesError = "";
  let filesAt = -1;
  let openFile: { path: string; content: string | null; error?: string } | null = null;
  let runs: { runs: Run[]; triggers: Trigger[] } | null = null;
  let runsError = "";
  let runsAt = -1;

  function viewFromHash(): View {
    const h = location.hash.slice(1);
    return VIEWS.some((v) => v.id === h) ? (h as View) : "transcript";
  }

  const onHash = () => {
    view = viewFromHash();
    loadView();
    schedule();
  };
  const onOnline = () => schedule();
  window.addEventListener("hashchange", onHash);
  window.addEventListener("online", onOnline);
  window.addEventListener("offline", onOnline);

  function schedule() {
    if (!frame && !left) frame = requestAnimationFrame(draw);
  }

  // ---- actions ---------------------------------------------------------------------------

  /** Sends over the socket when it is open, else over HTTP (same idempotency key either way). */
  async function viaSocket<T>(socket: () => Promise<T> | undefined, http: () => Promise<T>): Promise<T> {
    try {
      const p = socket();
      if (p) return await p;
    } catch (err) {
      if (!(err instanceof HighwaterError && err.code === "disconnected")) throw err;
    }
    return http();
  }

  async function send(form: HTMLFormElement) {
    const input = form.querySelector("textarea")!;
    const text = input.value;
    if (!text.trim()) return;
    const key = deps.randomKey();
    sending = true;
    problem = "";
    schedule();
    try {
      await viaSocket(
        () => conn?.send({ type: "message", text, idempotencyKey: key }),
        () => client.sendMessage(id, text, key),
      );
      if (input.value === text) input.value = "";
      draft = "";
    } catch (err) {
      if (!handleAuth(err)) problem = `Not sent: ${errorText(err)}`;
    } finally {
      sending = false;
      schedule();
      input.focus();
    }
  }

  async function stop() {
    try {
      setSession(
        await viaSocket(
          () => conn?.send({ type: "stop" }),
          () => client.stop(id),
        ),
      );
    } catch (err) {
      if (!handleAuth(err)) problem = `Stop failed: ${errorText(err)}`;
      schedule();
    }
  }

  async function resume(wait: NonNullable<Wait>) {
    const input = root.querySelector<HTMLTextAreaElement>("#message");
    const text = input?.value.trim() ?? "";
    try {
      await client.resume(id, wait.runId, { waitId: wait.waitId, ...(text ? { text } : {}) });
      if (input) input.value = "";
    } catch (err) {
      if (!handleAuth(err)) problem = `Resume failed: ${errorText(err)}`;
      schedule();
    }
  }

  /** A decision bound to the arguments this card displayed (CONTRACT §7.17). */
  async function decide(requestId: string, decision: "approve" | "reject", argsDigest: string) {
    try {
      setSession(
        await viaSocket(
          () => conn?.send({ type: "approval", requestId, decision, argsDigest }),
          () => client.decideApproval(id, requestId, decision, { argsDigest }),
        ),
      );
    } catch (err) {
      if (handleAuth(err)) return;
      problem =
        err instanceof HighwaterError && err.status === 409
          ? `Not decided: ${err.message}. Reload to review the call again.`
          : `Decision failed: ${errorText(err)}`;
      schedule();
    }
  }

  async function dismiss(atSeq: number) {
    try {
      setSession(await client.dismissRecoveryNotice(id, atSeq));
    } catch (err) {
      if (handleAuth(err)) return;
      // 409: someone else dismissed it (or a newer notice replaced it); the session frame tells which.
      if (err instanceof HighwaterError && err.status === 409) setSession(await client.getSession(id));
      else problem = `Dismiss failed: ${errorText(err)}`;
      schedule();
    }
  }

  async function exportLog(e: MouseEvent) {
    e.preventDefault();
    try {
      const url = URL.createObjectURL(new Blob([await client.exportNdjson(id)], { type: "application/x-ndjson" }));
      const a = document.createElement("a");
      a.href = url;
      a.download = `highwater-${id.slice(0, 12)}.ndjson`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      if (!handleAuth(err)) problem = `Export failed: ${errorText(err)}`;
      schedule();
    }
  }

  async function verify() {
    verifyState = "running";
    schedule();
    try {
      verifyState = await client.verify(id);
    } catch (err) {
      verifyState = `verify failed: ${errorText(err)}`;
    }
    schedule();
  }

  // ---- the views' data ------------------------------------------------------------------

  function loadView() {
    if (view === "context") void loadContext();
    if (view === "log" && !logPage) void loadLog(null);
    if (view === "files") void loadFiles();
    if (view === "runs") void loadRuns();
  }

  /** Runs (every turn, scheduled ones with their trigger) and the session's triggers (CONTRACT §6). */
  async function loadRuns() {
    const at = session?.highWater ?? 0;
    if (runsAt === at) return;
    runsAt = at;
    try {
      const [r, t] = await Promise.all([client.runs(id), client.triggers(id)]);
      runs = { runs: r.runs, triggers: t.triggers };
      runsError = "";
    } catch (err) {
      if (!handleAuth(err)) runsError = errorText(err);
    }
    schedule();
  }

  async function loadContext() {
    const at = session?.highWater ?? 0;
    if (contextAt === at) return;
    contextAt = at;
    try {
      context = await client.context(id);
      contextError = "";
    } catch (err) {
      if (!handleAuth(err)) contextError = errorText(err);
    }
    schedule();
  }

  /** A page of the raw log: `after` null means the newest page. */
  async function loadLog(after: number | null) {
    try {
      const start = after ?? Math.max(0, (session?.highWater ?? 0) - LOG_PAGE);
      logPage = await client.events(id, start, LOG_PAGE);
      logAfter = start;
      logError = "";
    } catch (err) {
      if (!handleAuth(err)) logError = errorText(err);
    }
    schedule();
  }

  async function loadFiles(more = false) {
    const at = session?.highWater ?? 0;
    if (!more && filesAt === at) return;
    filesAt = at;
    try {
      const page = await client.files(id, more && filesNext ? { after: filesNext } : {});
      files = more && files ? [...files, ...page.files] : page.files;
      filesNext = page.next;
      filesError = "";
    } catch (err) {
      if (!handleAuth(err)) filesError = errorText(err);
    }
    schedule();
  }

  async function showFile(path: string) {
    openFile = { path, content: null };
    schedule();
    try {
      openFile = { path, content: await client.file(id, path) };
    } catch (err) {
      if (!handleAuth(err)) openFile = { path, content: null, error: errorText(err) };
    }
    schedule();
  }

  // ---- frames ----------------------------------------------------------------------------

  function setSession(s: Session) {
    session = s;
    document.title = `${s.title || "Untitled session"} — highwater`;
    schedule();
  }

  function onFrame(f: ServerFrame) {
    if (f.type === "ready" || f.type === "session") {
      // A replay follows `ready`: whatever was streaming is superseded by it.
      if (f.type === "ready") streaming.clear();
      setSession(f.session);
    } else if (f.type === "event") {
      const e = f.event;
      fold.add(e);
      if (e.invocationId && (e.content?.type === "text" || e.content?.type === "thinking"))
        streaming.delete(`${e.invocationId}:${e.content.type}`);
      if (e.actions?.turnClose) {
        streaming.clear();
        // The views that read the server's state follow the turn's end.
        if (view === "context") void loadContext();
        if (view === "files") void loadFiles();
        if (view === "runs") void loadRuns();
      }
      if (e.content?.type === "functionResponse" && view === "files") void loadFiles();
      schedule();
    } else if (f.type === "delta") {
      onDelta(f);
      schedule();
    } else if (f.type === "error") {
      problem = `${f.error.code}: ${f.error.message}`;
      schedule();
    }
  }

  function onDelta(f: Extract<ServerFrame, { type: "delta" }>) {
    applyDelta(streaming, f);
  }

  // ---- drawing ---------------------------------------------------------------------------

  function draw() {
    frame = 0;
    if (left) return;
    const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 120;
    const t = performance.now();
    render(page(), root);
    // Set by the browser tests to measure how long a render takes.
    (window as { __hwDraws?: number[] }).__hwDraws?.push(performance.now() - t);
    if (atBottom && view === "transcript" && streamingOrNew()) window.scrollTo({ top: document.body.scrollHeight });
  }

  let lastDrawnSeq = 0;
  function streamingOrNew(): boolean {
    const moved = fold.lastSeq !== lastDrawnSeq;
    lastDrawnSeq = fold.lastSeq;
    return moved || streaming.size > 0;
  }

  function page(): TemplateResult {
    if (loadError)
      return html`<a href="/" data-nav class="back">← Sessions</a>
        <p class="error" role="alert">${loadError}</p>`;
    const s = session;
    const count = Math.max(s?.highWater ?? 0, fold.lastSeq);
    return html`
      <a href="/" data-nav class="back">← Sessions</a>
      <header class="session-head">
        <h1>${s ? s.title || "Untitled session" : "Session"}</h1>
        <div class="meta">
          ${s ? statusPill(s.status) : nothing} ${s ? modelLabel(s) : nothing}
          <span class="muted count" aria-live="off">${count} events</span>
          ${placementLabel(s)}
          ${connLabel()}
        </div>
      </header>
      ${banner()}
      <p class="error" role="alert">${problem}</p>
      <div class="tabs" role="tablist" aria-label="Session views" @keydown=${tabKeys}>
        ${VIEWS.map(
          (v) => html`<button
            type="button"
            role="tab"
            id=${`tab-${v.id}`}
            aria-controls=${`panel-${v.id}`}
            aria-selected=${v.id === view ? "true" : "false"}
            tabindex=${v.id === view ? "0" : "-1"}
            @click=${() => selectView(v.id)}
          >${v.label}</button>`,
        )}
      </div>
      <section class="panel" role="tabpanel" id=${`panel-${view}`} aria-labelledby=${`tab-${view}`}>
        ${view === "transcript" ? transcriptView() : nothing} ${view === "context" ? contextView() : nothing}
        ${view === "log" ? logView() : nothing} ${view === "files" ? filesView() : nothing}
        ${view === "runs" ? runsView() : nothing}
        ${view === "timeline" ? timelineView(fold.spans, fold.marks, Date.now(), timelineWidth()) : nothing}
      </section>
      ${composer()}
    `;
  }

  function timelineWidth(): number {
    // The panel's inner width: the chart is drawn to fit it, never wider.
    const panel = root.querySelector<HTMLElement>(".panel");
    return Math.max(280, Math.min((panel?.clientWidth ?? root.clientWidth) - 2 || 800, 1200));
  }

  function selectView(v: View) {
    if (v === view) return;
    history.replaceState(null, "", v === "transcript" ? location.pathname : `#${v}`);
    view = v;
    loadView();
    schedule();
  }

  /** Arrow keys move between tabs (WAI-ARIA tabs pattern). */
  function tabKeys(e: KeyboardEvent) {
    const i = VIEWS.findIndex((v) => v.id === view);
    const next =
      e.key === "ArrowRight"
        ? (i + 1) % VIEWS.length
        : e.key === "ArrowLeft"
          ? (i + VIEWS.length - 1) % VIEWS.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? VIEWS.length - 1
              : -1;
    if (next < 0) return;
    e.preventDefault();
    selectView(VIEWS[next]!.id);
    requestAnimationFrame(() => root.querySelector<HTMLButtonElement>(`#tab-${VIEWS[next]!.id}`)?.focus());
  }

  function connLabel(): TemplateResult {
    // "offline" only when the browser says so or attempts keep failing: never "live" on a dead link.
    const offline = connState !== "open" && (!navigator.onLine || (conn?.retries ?? 0) >= 3);
    const shown =
      connState === "open"
        ? "live"
        : offline
          ? "offline"
          : connState === "reconnecting"
            ? "reconnecting"
            : "connecting";
    const text =
      shown === "live"
        ? "● live"
        : shown === "offline"
          ? "○ offline — retrying"
          : shown === "reconnecting"
            ? "◌ reconnecting…"
            : "◌ connecting…";
    return html`<span class="conn" role="status" data-state=${shown}>${text}</span>`;
  }

  function banner(): TemplateResult | typeof nothing {
    const n = session?.recoveryNotice;
    if (!n) return nothing;
    const call = (c: string) => html`<li><code>${fold.toolOf(c) ?? "call"}</code> ${c}</li>`;
    return html`<section class="banner" aria-label="Recovery notice">
      <strong>This session recovered after a restart (event ${n.atSeq}).</strong>
      ${n.rerun.length ? html`<p>Re-run (safe to repeat):</p><ul>${n.rerun.map(call)}</ul>` : nothing}
      ${
        n.needsReview.length
          ? html`<p>Needs review (the side effect may or may not have happened):</p><ul>${n.needsReview.map(call)}</ul>`
          : nothing
      }
      ${
        (n as { reissued?: string[] }).reissued?.length
          ? html`<p>${(n as { reissued: string[] }).reissued.length} model call(s) were issued again.</p>`
          : nothing
      }
      <button type="button" class="dismiss" @click=${() => void dismiss(n.atSeq)}>Dismiss</button>
    </section>`;
  }

  function composer(): TemplateResult {
    const s = session;
    const wait = (s as { wait?: Wait } | null)?.wait ?? null;
    return html`<form
      class="composer"
      @submit=${(e: SubmitEvent) => {
        e.preventDefault();
        void send(e.currentTarget as HTMLFormElement);
      }}
    >
      <label for="message" class="sr-only">Message</label>
      <textarea
        id="message"
        rows="3"
        .value=${draft}
        @input=${(e: InputEvent) => {
          draft = (e.target as HTMLTextAreaElement).value;
        }}
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        @keydown=${(e: KeyboardEvent) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            (e.currentTarget as HTMLTextAreaElement).form!.requestSubmit();
          }
        }}
      ></textarea>
      <div class="composer-actions">
        <button type="submit" ?disabled=${sending}>Send</button>
        <button type="button" class="danger" ?disabled=${!s?.openTurn} @click=${() => void stop()}>Stop</button>
        ${wait && wait.kind !== "child" ? html`<button type="button" @click=${() => void resume(wait)}>Resume</button>` : nothing}
      </div>
      ${
        wait
          ? html`<p class="wait-note muted" role="status">
              ${waitText(wait, (s as { maxModelCallsPerTurn?: number } | null)?.maxModelCallsPerTurn)}
            </p>`
          : nothing
      }
    </form>`;
  }

  // ---- Transcript ------------------------------------------------------------------------

  function transcriptView(): TemplateResult {
    const pending = new Map(session?.pendingApprovals.map((p) => [p.requestId, p]));
    const all = fold.items;
    const items = showAll || all.length <= SHOWN ? all : all.slice(-SHOWN);
    const hidden = all.length - items.length;
    const stream = [...streaming.values()];
    return html`
      ${
        hidden > 0
          ? html`<button type="button" class="link earlier" @click=${() => {
              showAll = true;
              schedule();
            }}>Show ${hidden} earlier items</button>`
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
          (i) => cachedItem(i, pending),
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

  function cachedItem(item: ShownItem, pending: Map<string, Session["pendingApprovals"][number]>): TemplateResult {
    const key = `${item.kind}:${item.seq}`;
    const approval = item.kind === "tool" && item.requestId ? pending.get(item.requestId) : undefined;
    const actionable = approval !== undefined;
    const hit = itemCache.get(key);
    // Open tool calls show a live duration: they re-render on each frame until answered.
    const live = item.kind === "tool" && item.startedAt !== undefined && item.endedAt === undefined;
    // Approval cards are few and follow their digest check: never cached.
    if (hit && hit.rev === item.rev && !actionable && !hit.actionable && !live) return hit.tpl;
    const tpl = itemView(item, approval);
    itemCache.set(key, { rev: item.rev, actionable, tpl });
    return tpl;
  }

  function itemView(item: ShownItem, approval: Session["pendingApprovals"][number] | undefined): TemplateResult {
    switch (item.kind) {
      case "message":
        return html`<li class="item msg ${item.role}" data-seq=${item.seq}>
          <div class="who">
            ${item.role === "user" ? "You" : "Assistant"}
            ${item.source && !["http", "ws"].includes(item.source) ? html`<span class="muted"> via ${item.source}</span>` : nothing}
          </div>
          <div class="text">${item.text}</div>
        </li>`;
      case "thinking":
        return html`<li class="item thinking" data-seq=${item.seq}>
          <details><summary>Thinking (${item.text.length} chars)</summary><pre>${item.text}</pre></details>
        </li>`;
      case "tool":
        return toolView(item, approval);
      case "error":
        return html`<li class="item error" role="note" data-seq=${item.seq}>
          <strong>Error (${item.code}): </strong>${item.message}
        </li>`;
      case "recovery":
        return html`<li class="item recovery" data-seq=${item.seq}>
          Recovered after a restart: ${item.rerun.length} call(s) re-run, ${item.needsReview.length} need review.
        </li>`;
      case "turn":
        return html`<li class="item turn" data-seq=${item.seq} data-reason=${item.reason}>turn ${item.reason}</li>`;
      case "record":
        return html`<li class="item record" data-seq=${item.seq}>
          Work record <code>${item.topic}</code>:
          ${item.revision !== undefined ? `revision ${item.revision}` : `entry ${item.entry}`}
        </li>`;
      case "fork":
        return html`<li class="item fork" data-seq=${item.seq}>
          Forked from <a href="/s/${item.sessionId}" data-nav>${item.sessionId.slice(0, 12)}…</a> at seq ${item.throughSeq}
        </li>`;
    }
  }

  function toolView(
    item: ShownItem & { kind: "tool" },
    approval: Session["pendingApprovals"][number] | undefined,
  ): TemplateResult {
    const dur =
      item.startedAt !== undefined ? formatDuration((item.endedAt ?? Date.now()) - item.startedAt) : undefined;
    const args = pretty(item.args);
    const head = html`<code class="tool-name">${item.tool}</code>
      <span class="badge" data-state=${item.state}>${item.state.replace("_", " ")}</span>
      ${dur ? html`<span class="muted duration">${dur}${item.endedAt === undefined ? "…" : ""}</span>` : nothing}
      ${
        item.recovery
          ? html`<span class="badge recovery">${item.recovery === "rerun" ? "re-run after restart" : "needs review"}</span>`
          : nothing
      }`;
    if (approval) {
      // The whole arguments, not a preview: this is what the decision is bound to. The digest
      // sent is the one computed here from the arguments shown, checked against the server's.
      const bytes = new TextEncoder().encode(JSON.stringify(item.args) ?? "").length;
      const shown = shownDigest(approval.requestId, item.args);
      const mismatch = shown !== approval.argsDigest;
      const digest = shown;
      return html`<li class="item tool approval-card" data-seq=${item.seq} data-state=${item.state}>
        <div class="tool-head">${head}</div>
        <div class="block">
          <span class="label">Arguments, ${formatBytes(bytes)} · digest <code>${approval.argsDigest.slice(0, 12)}…</code></span>
          <pre class="args" tabindex="0" aria-label="Arguments of ${item.tool}">${args}</pre>
        </div>
        ${
          mismatch
            ? html`<p class="error" role="alert">
              These arguments do not match the digest of the pending call: reload before deciding.
            </p>`
            : nothing
        }
        <div class="approval" role="group" aria-label=${`Approval for ${item.tool}`}>
          <span>This call needs your approval.</span>
          <button type="button" ?disabled=${mismatch || shown === "pending"} @click=${() => void decide(approval.requestId, "approve", digest)}>Approve</button>
          <button type="button" class="danger" ?disabled=${shown === "pending"} @click=${() => void decide(approval.requestId, "reject", digest)}>
            Reject
          </button>
        </div>
      </li>`;
    }
    return html`<li class="item tool" data-seq=${item.seq} data-state=${item.state}>
      <details>
        <summary class="tool-head">${head}</summary>
        ${block("Arguments", args)} ${item.response !== undefined ? block("Response", pretty(item.response)) : nothing}
      </details>
    </li>`;
  }

  /** The args digest of the arguments as shown (docs/API.md), computed once per approval. */
  function shownDigest(requestId: string, args: unknown): string {
    const known = digests.get(requestId);
    if (known !== undefined) return known;
    const digest = argsDigest(args);
    digests.set(requestId, digest);
    return digest;
  }

  // ---- Context ---------------------------------------------------------------------------

  function contextView(): TemplateResult {
    if (contextError) return html`<p class="error" role="alert">${contextError}</p>`;
    if (!context) return html`<p class="muted">Loading the context…</p>`;
    const c = context;
    const pct = (n: number) => `${((100 * n) / c.contextWindow).toFixed(1)}%`;
    const text = JSON.stringify(c.messages);
    const offloaded = (text.match(/archive:\/\/[0-9a-f]{64}/g) ?? []).length;
    const u = session?.usage;
    const cacheRate = u && u.cachedInputTokens > 0 && u.inputTokens > 0 ? u.cachedInputTokens / u.inputTokens : null;
    const used = c.estimatedTokens / c.threshold;
    return html`
      <div class="context">
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
            ${waterline(c.checkpoint?.throughSeq ?? 0, session?.highWater ?? fold.lastSeq)}
          </dd>
          <dt>Offloaded results</dt>
          <dd>${offloaded} tool result${offloaded === 1 ? "" : "s"} replaced by an archive placeholder</dd>
          <dt>Prompt-cache hit rate</dt>
          <dd>
            ${
              cacheRate !== null
                ? html`${(cacheRate * 100).toFixed(1)}% of ${u!.inputTokens.toLocaleString()} input tokens were cached`
                : html`<span class="muted">not reported by this provider</span>`
            }
          </dd>
          <dt>Messages</dt>
          <dd>${c.messages.length} messages, ${formatBytes(new TextEncoder().encode(text).length)}</dd>
        </dl>
        ${c.checkpoint ? html`<details><summary>Checkpoint summary</summary><pre>${c.checkpoint.summary}</pre></details>` : nothing}
        <details><summary>Messages as the next call sends them</summary><pre>${pretty(c.messages)}</pre></details>
      </div>
    `;
  }

  function waterline(through: number, head: number): TemplateResult {
    const w = head > 0 ? (100 * through) / head : 0;
    return html`<div class="waterline" aria-hidden="true">
      <div class="summarised" style="width:${w.toFixed(1)}%"></div>
      <span class="muted">seq 1</span><span class="muted right">seq ${head}</span>
    </div>`;
  }

  // ---- Log -------------------------------------------------------------------------------

  function logView(): TemplateResult {
    const v = verifyState;
    const verifyOut =
      v === "idle"
        ? nothing
        : v === "running"
          ? html`<span class="verify" role="status">verifying…</span>`
          : typeof v === "string"
            ? html`<span class="verify bad" role="status">${v}</span>`
            : v.ok
              ? html`<span class="verify ok" role="status">✓ verified ${v.highWater} events, head <code>${v.headDigest.slice(0, 12)}…</code></span>`
              : html`<span class="verify bad" role="status">✗ ${v.problems.length} problem(s): ${v.problems.slice(0, 3).join("; ")}</span>`;
    const p = logPage;
    const first = p?.events[0]?.seq ?? 0;
    const last = p?.events.at(-1)?.seq ?? 0;
    const head = Math.max(p?.highWater ?? 0, session?.highWater ?? 0);
    return html`
      <div class="toolbar">
        <button type="button" @click=${() => void verify()}>Verify</button>
        <a href=${`/v1/sessions/${id}/export`} @click=${exportLog} download>Export</a>
        ${verifyOut}
      </div>
      ${logError ? html`<p class="error" role="alert">${logError}</p>` : nothing}
      ${
        p
          ? html`<div class="pager">
              <button type="button" ?disabled=${first <= 1} @click=${() => void loadLog(Math.max(0, (logAfter ?? 0) - LOG_PAGE))}>Older</button>
              <span class="muted">seq ${first}–${last} of ${head}</span>
              <button type="button" ?disabled=${last >= head} @click=${() => void loadLog(last)}>Newer</button>
              <button type="button" class="link" @click=${() => void loadLog(null)}>Latest</button>
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

  // ---- Files -----------------------------------------------------------------------------

  function runsView(): TemplateResult {
    if (runsError) return html`<p class="error" role="alert">${runsError}</p>`;
    if (!runs) return html`<p class="muted">Loading runs…</p>`;
    const parent = session?.parentId;
    return html`
      ${parent ? html`<p>A sub-session of <a href="/s/${parent}" data-nav>${parent.slice(0, 12)}…</a></p>` : nothing}
      <h2>Triggers</h2>
      ${
        runs.triggers.length === 0
          ? html`<p class="muted empty">No triggers: scheduled runs appear here once one is created.</p>`
          : html`<ul class="triggers">
              ${runs.triggers.map(
                (t) => html`<li><code>${t.name}</code> ${JSON.stringify(t.schedule)}
                  ${t.nextAt ? html`<span class="muted">next ${new Date(t.nextAt).toLocaleString()}</span>` : nothing}</li>`,
              )}
            </ul>`
      }
      <h2>Runs</h2>
      ${
        runs.runs.length === 0
          ? html`<p class="muted empty">No runs yet.</p>`
          : html`<table class="runs">
              <thead><tr><th>run</th><th>trigger</th><th>state</th><th>outcome</th><th>started</th></tr></thead>
              <tbody>
                ${runs.runs.map(
                  (r) => html`<tr>
                    <td><code>${r.runId.slice(0, 8)}</code></td>
                    <td>${r.trigger ?? "—"}</td>
                    <td>${r.state}${r.waitId ? html` <span class="muted">(${r.waitId})</span>` : nothing}</td>
                    <td>${r.outcome ?? ""}</td>
                    <td>${new Date(r.startedAt).toLocaleString()}</td>
                  </tr>`,
                )}
              </tbody>
            </table>`
      }`;
  }

  function filesView(): TemplateResult {
    if (filesError) return html`<p class="error" role="alert">${filesError}</p>`;
    if (!files) return html`<p class="muted">Loading the workspace…</p>`;
    if (files.length === 0)
      return html`<p class="muted empty">The workspace is empty: files the agent writes appear here.</p>`;
    return html`
      <div class="files">
        <ul class="file-list" aria-label="Workspace files">
          ${files.map(
            (f) => html`<li>
              <button type="button" class="link" aria-current=${openFile?.path === f.path ? "true" : "false"} @click=${() => void showFile(f.path)}>${f.path}</button>
              <span class="muted">${formatBytes(f.bytes)} · ${new Date(f.updatedAt).toLocaleString()}</span>
            </li>`,
          )}
          ${filesNext ? html`<li><button type="button" class="link" @click=${() => void loadFiles(true)}>More</button></li>` : nothing}
        </ul>
        ${
          openFile
            ? html`<article class="file" aria-label=${openFile.path}>
              <h2><code>${openFile.path}</code></h2>
              ${
                openFile.error
                  ? html`<p class="error">${openFile.error}</p>`
                  : openFile.content === null
                    ? html`<p class="muted">Loading…</p>`
                    : html`<pre class="file-content">${openFile.content}</pre>`
              }
            </article>`
            : html`<p class="muted">Open a file to read it.</p>`
        }
      </div>
    `;
  }

  // ---- start -----------------------------------------------------------------------------

  schedule();
  (async () => {
    try {
      const first = await client.getSession(id);
      if (left) return;
      setSession(first);
      loadView();
      conn = client.connect(id, {
        after: Math.max(0, first.highWater - WINDOW),
        onFrame,
        onState: (s) => {
          connState = s;
          schedule();
        },
        onFatal: (err) => {
          if (!handleAuth(err)) problem = `Disconnected: ${errorText(err)}`;
          schedule();
        },
      });
    } catch (err) {
      if (handleAuth(err)) return;
      loadError = err instanceof HighwaterError && err.status === 404 ? "No such session." : errorText(err);
      schedule();
    }
  })();
  // Open tool calls and the timeline show time passing; the connection label follows retries.
  const ticker = setInterval(() => {
    if (
      view === "timeline" ||
      connState !== "open" ||
      fold.items.some((i) => i.kind === "tool" && i.state === "running")
    )
      schedule();
  }, 1000);

  return () => {
    left = true;
    conn?.close();
    conn = null;
    clearInterval(ticker);
    window.removeEventListener("hashchange", onHash);
    window.removeEventListener("online", onOnline);
    window.removeEventListener("offline", onOnline);
    if (frame) cancelAnimationFrame(frame);
    render(nothing, root);
  };
}

function pretty(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

function block(label: string, text: string): TemplateResult {
  return text.length > LONG_TEXT || text.split("\n").length > 12
    ? html`<details class="block"><summary>${label} (${text.length} chars)</summary><pre>${text}</pre></details>`
    : html`<div class="block"><span class="label">${label}</span><pre>${text}</pre></div>`;
}

export function statusPill(status: Session["status"]): TemplateResult {
  return html`<span class="pill" data-status=${status}>${status.replace("_", " ")}</span>`;
}

export function modelLabel(s: Session): TemplateResult {
  return html`<span class="model"
    >${s.model.name}${
      s.model.provider === "demo"
        ? html`<span class="demo" title="highwater's built-in offline model: deterministic, no API key">demo model</span>`
        : nothing
    }</span
  >`;
}

function placementLabel(s: Session | null): TemplateResult | typeof nothing {
  const p = (s as { placement?: { locationHint: string | null; jurisdiction: string | null } } | null)?.placement;
  if (!p || (!p.locationHint && !p.jurisdiction)) return nothing;
  return html`<span class="muted placement">${[p.jurisdiction && `jurisdiction ${p.jurisdiction}`, p.locationHint && `near ${p.locationHint}`].filter(Boolean).join(" · ")}</span>`;
}
