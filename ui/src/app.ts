/**
 * The browser console: a token form, the session list and one session's live transcript.
 * Plain DOM, no framework. The transcript is the server's own pure projection
 * (`buildTranscript`) over the events this page received, each exactly once, in order.
 */
import {
  type Connection,
  type Event,
  HighwaterClient,
  HighwaterError,
  type Session,
  type TranscriptItem,
} from "../../src/client";
// The module itself, not the projections index: it is pure and imports only types, while the
// index also re-exports projections that need Worker-only modules.
import { buildTranscript } from "../../src/projections/transcript";

const TOKEN_KEY = "highwater.token";
/** The page folds at most this many recent events, like `GET /transcript`. */
const WINDOW = 5_000;
const LONG_TEXT = 400;

const app = document.getElementById("app")!;
const topActions = document.getElementById("top-actions")!;
let client: HighwaterClient | null = null;
let leave: () => void = () => {};

// ---- tiny DOM helper ------------------------------------------------------------------------

type Child = Node | string | null | undefined | false;
type Props = Record<string, string | boolean | undefined | ((e: never) => void)>;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (typeof v === "boolean") el.toggleAttribute(k, v);
    else if (v !== undefined) el.setAttribute(k, v);
  }
  for (const c of children) if (c) el.append(c);
  return el;
}

function navigate(path: string) {
  history.pushState(null, "", path);
  route();
}

document.addEventListener("click", (e) => {
  const a = (e.target as Element).closest?.("a[data-nav]");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href")!);
});
window.addEventListener("popstate", route);

function randomKey(): string {
  // crypto.randomUUID needs a secure context; getRandomValues does not.
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

function pretty(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
}

/** A sub-session links to the session that spawned it (CONTRACT §6 spawn_session). */
function parentLink(s: Session): HTMLElement[] {
  if (!s.parentId) return [];
  return [
    h("a", { href: `/s/${s.parentId}`, "data-nav": true, class: "muted" }, `sub-session of ${s.parentId.slice(0, 8)}…`),
  ];
}

function statusPill(status: Session["status"]) {
  return h("span", { class: "pill", "data-status": status }, status.replace("_", " "));
}

function modelLabel(s: Session) {
  return h(
    "span",
    { class: "model" },
    s.model.name,
    s.model.provider === "demo" &&
      h(
        "span",
        { class: "demo", title: "highwater's built-in offline model: deterministic, no API key" },
        "demo model",
      ),
  );
}

function errorText(err: unknown): string {
  return err instanceof HighwaterError ? `${err.code}: ${err.message}` : String(err);
}

/** A 401 anywhere means the stored token is wrong: forget it and ask again. */
function handleAuth(err: unknown): boolean {
  if (err instanceof HighwaterError && err.status === 401) {
    leave();
    leave = () => {};
    localStorage.removeItem(TOKEN_KEY);
    client = null;
    renderTokenForm("That token was not accepted. Paste a valid API token.");
    return true;
  }
  return false;
}

// ---- routes ---------------------------------------------------------------------------------

function route() {
  leave();
  leave = () => {};
  const token = localStorage.getItem(TOKEN_KEY);
  client = token ? new HighwaterClient({ baseUrl: location.origin, token }) : null;
  topActions.replaceChildren(
    token
      ? h(
          "button",
          {
            type: "button",
            class: "link",
            onclick: () => {
              localStorage.removeItem(TOKEN_KEY);
              route();
            },
          },
          "Forget token",
        )
      : "",
  );
  if (!client) return renderTokenForm();
  const m = /^\/s\/([^/]+)\/?$/.exec(location.pathname);
  if (m) renderSession(client, decodeURIComponent(m[1]!));
  else renderHome(client);
}

function renderTokenForm(problem?: string) {
  document.title = "highwater";
  const input = h("input", { id: "token", type: "password", autocomplete: "off", required: true, spellcheck: "false" });
  const error = h("p", { class: "error", role: "alert" }, problem);
  const form = h(
    "form",
    {
      class: "card",
      onsubmit: async (e: SubmitEvent) => {
        e.preventDefault();
        const token = input.value.trim();
        try {
          await new HighwaterClient({ baseUrl: location.origin, token }).listSessions({ limit: 1 });
          localStorage.setItem(TOKEN_KEY, token);
          route();
        } catch (err) {
          error.textContent =
            err instanceof HighwaterError && err.status === 401 ? "That token was not accepted." : errorText(err);
        }
      },
    },
    h("h1", {}, "Connect"),
    h(
      "p",
      {},
      "Paste an API token (one of the Worker's API_TOKENS; `npm start` prints one). It stays in this browser's local storage.",
    ),
    h("label", { for: "token" }, "API token"),
    input,
    h("button", { type: "submit" }, "Save token"),
    error,
  );
  app.replaceChildren(form);
  input.focus();
}

function renderHome(client: HighwaterClient) {
  document.title = "Sessions — highwater";
  const title = h("input", { id: "new-title", maxlength: "500", placeholder: "e.g. Draft the release notes" });
  const system = h("textarea", { id: "new-system", rows: "3", maxlength: "65536" });
  const error = h("p", { class: "error", role: "alert" });
  const list = h("ul", { class: "sessions", "aria-label": "Your sessions" }, h("li", { class: "muted" }, "Loading…"));
  const form = h(
    "form",
    {
      class: "card",
      onsubmit: async (e: SubmitEvent) => {
        e.preventDefault();
        try {
          const s = await client.createSession({
            ...(title.value.trim() ? { title: title.value.trim() } : {}),
            ...(system.value.trim() ? { system: system.value } : {}),
          });
          navigate(`/s/${s.id}`);
        } catch (err) {
          if (!handleAuth(err)) error.textContent = errorText(err);
        }
      },
    },
    h("h2", {}, "New session"),
    h("label", { for: "new-title" }, "Title"),
    title,
    h(
      "details",
      {},
      h("summary", {}, "System prompt (optional)"),
      h("label", { for: "new-system" }, "Extra system instructions"),
      system,
    ),
    h("button", { type: "submit" }, "Create session"),
    error,
  );
  app.replaceChildren(form, h("h2", {}, "Sessions"), list);

  const load = async (before?: string) => {
    try {
      const page = await client.listSessions(before ? { before } : {});
      if (!before) list.replaceChildren();
      if (!before && page.sessions.length === 0) list.append(h("li", { class: "muted" }, "No sessions yet."));
      for (const s of page.sessions)
        list.append(
          h(
            "li",
            {},
            h("a", { href: `/s/${s.id}`, "data-nav": true }, s.title || "Untitled session"),
            statusPill(s.status),
            ...parentLink(s),
            h("span", { class: "muted" }, `${s.highWater} events · updated ${new Date(s.updatedAt).toLocaleString()}`),
          ),
        );
      if (page.next) {
        const more = h(
          "button",
          {
            type: "button",
            class: "link",
            onclick: () => {
              more.remove();
              void load(page.next);
            },
          },
          "More",
        );
        list.append(h("li", {}, more));
      }
    } catch (err) {
      if (!handleAuth(err)) list.replaceChildren(h("li", { class: "error" }, errorText(err)));
    }
  };
  void load();
}

// ---- one session ----------------------------------------------------------------------------

function renderSession(client: HighwaterClient, id: string) {
  let session: Session | null = null;
  let conn: Connection | null = null;
  const events: Event[] = [];
  /** Streamed, not yet committed model output, by `${invocationId}:${kind}`. */
  const streaming = new Map<string, { kind: "text" | "thinking"; text: string }>();
  const rendered = new Map<string, { sig: string; el: HTMLElement }>();
  let frame = 0;
  let left = false;

  const heading = h("h1", {}, "Session");
  const meta = h("div", { class: "meta" });
  const linkState = h("span", { class: "conn muted", role: "status" }, "connecting…");
  const verifyOut = h("span", { class: "verify", role: "status" });
  const stopBtn = h("button", { type: "button", class: "danger", disabled: true, onclick: () => void stop() }, "Stop");
  const banner = h("div", { class: "banner-slot" });
  const waitSlot = h("div", { class: "wait-slot" });
  let shownWait = "";
  const problem = h("p", { class: "error", role: "alert" });
  const log = h("ol", { class: "transcript", role: "log", "aria-label": "Transcript", "aria-live": "polite" });
  const live = h("div", { class: "streaming", "aria-hidden": "true" });
  const input = h("textarea", {
    id: "message",
    rows: "3",
    placeholder: "Message the agent (Enter to send, Shift+Enter for a new line)",
    onkeydown: (e: KeyboardEvent) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        composer.requestSubmit();
      }
    },
  });
  const sendBtn = h("button", { type: "submit" }, "Send");
  const composer = h(
    "form",
    {
      class: "composer",
      onsubmit: (e: SubmitEvent) => {
        e.preventDefault();
        void send();
      },
    },
    h("label", { for: "message", class: "sr-only" }, "Message"),
    input,
    sendBtn,
  );
  const toolbar = h(
    "div",
    { class: "toolbar" },
    stopBtn,
    h("button", { type: "button", onclick: () => void exportLog() }, "Export NDJSON"),
    h("button", { type: "button", onclick: () => void verify() }, "Verify log"),
    verifyOut,
    linkState,
  );
  app.replaceChildren(
    h("a", { href: "/", "data-nav": true, class: "back" }, "← Sessions"),
    h("header", { class: "session-head" }, heading, meta),
    toolbar,
    banner,
    waitSlot,
    problem,
    log,
    live,
    composer,
  );

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

  async function send() {
    const text = input.value;
    if (!text.trim()) return;
    const key = randomKey();
    sendBtn.disabled = true;
    problem.textContent = "";
    try {
      await viaSocket(
        () => conn?.send({ type: "message", text, idempotencyKey: key }),
        () => client.sendMessage(id, text, key),
      );
      if (input.value === text) input.value = "";
    } catch (err) {
      if (!handleAuth(err)) problem.textContent = `Not sent: ${errorText(err)}`;
    } finally {
      sendBtn.disabled = false;
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
      if (!handleAuth(err)) problem.textContent = `Stop failed: ${errorText(err)}`;
    }
  }

  async function decide(requestId: string, decision: "approve" | "reject") {
    try {
      setSession(
        await viaSocket(
          () => conn?.send({ type: "approval", requestId, decision }),
          () => client.decideApproval(id, requestId, decision),
        ),
      );
    } catch (err) {
      if (!handleAuth(err)) problem.textContent = `Decision failed: ${errorText(err)}`;
    }
  }

  async function exportLog() {
    try {
      const url = URL.createObjectURL(new Blob([await client.exportNdjson(id)], { type: "application/x-ndjson" }));
      h("a", { href: url, download: `highwater-${id.slice(0, 12)}.ndjson` }).click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      if (!handleAuth(err)) problem.textContent = `Export failed: ${errorText(err)}`;
    }
  }

  async function verify() {
    verifyOut.textContent = "verifying…";
    verifyOut.className = "verify";
    try {
      const r = await client.verify(id);
      verifyOut.className = `verify ${r.ok ? "ok" : "bad"}`;
      verifyOut.textContent = r.ok
        ? `✓ verified ${r.highWater} events, head ${r.headDigest.slice(0, 12)}…`
        : `✗ ${r.problems.length} problem(s): ${r.problems.slice(0, 3).join("; ")}`;
    } catch (err) {
      verifyOut.textContent = `verify failed: ${errorText(err)}`;
    }
  }

  function setSession(s: Session) {
    session = s;
    document.title = `${s.title || "Untitled session"} — highwater`;
    heading.textContent = s.title || "Untitled session";
    meta.replaceChildren(
      statusPill(s.status),
      modelLabel(s),
      h("span", { class: "muted" }, `${s.highWater} events`),
      ...parentLink(s),
      ...(s.wait?.kind === "child" ? [h("span", { class: "muted" }, "waiting for a sub-session")] : []),
    );
    stopBtn.disabled = !s.openTurn;
    // Re-rendered only when the wait changes, so typed resume text survives other updates.
    if ((s.wait?.waitId ?? "") !== shownWait) {
      shownWait = s.wait?.waitId ?? "";
      waitSlot.replaceChildren(...(s.wait ? [waitPanel(client, s, (m) => (problem.textContent = m))] : []));
    }
    renderBanner();
    schedule();
  }

  function renderBanner() {
    const n = session?.recoveryNotice;
    const key = n && `highwater.dismissed.${id}.${n.atSeq}`;
    if (!n || !key || localStorage.getItem(key)) return banner.replaceChildren();
    // The banner names calls by their tool: wait until the replay has reached the notice.
    if ((events.at(-1)?.seq ?? 0) < n.atSeq) return;
    const names = new Map<string, string>();
    for (const e of events) if (e.content?.type === "functionCall") names.set(e.content.callId, e.content.name);
    const call = (c: string) => h("li", {}, h("code", {}, names.get(c) ?? "call"), ` ${c}`);
    banner.replaceChildren(
      h(
        "section",
        { class: "banner", "aria-label": "Recovery notice" },
        h(
          "button",
          {
            type: "button",
            class: "dismiss",
            "aria-label": "Dismiss recovery notice",
            onclick: () => {
              localStorage.setItem(key, "1");
              renderBanner();
            },
          },
          "×",
        ),
        h("strong", {}, `This session recovered after a restart (event ${n.atSeq}).`),
        n.rerun.length > 0 && h("p", {}, "Re-run (safe to repeat):"),
        n.rerun.length > 0 && h("ul", {}, ...n.rerun.map(call)),
        n.needsReview.length > 0 && h("p", {}, "Needs review (the side effect may or may not have happened):"),
        n.needsReview.length > 0 && h("ul", {}, ...n.needsReview.map(call)),
      ),
    );
  }

  function onFrame(f: import("../../src/client").ServerFrame) {
    if (f.type === "ready" || f.type === "session") {
      if (f.type === "ready") streaming.clear();
      setSession(f.session);
    } else if (f.type === "event") {
      const e = f.event;
      events.push(e);
      if (e.invocationId && (e.content?.type === "text" || e.content?.type === "thinking"))
        streaming.delete(`${e.invocationId}:${e.content.type}`);
      if (e.actions?.turnClose) streaming.clear();
      if (e.actions?.stateDelta?.recoveryNotice) renderBanner();
      schedule();
    } else if (f.type === "delta") {
      const key = `${f.invocationId}:${f.kind}`;
      const s = streaming.get(key) ?? { kind: f.kind, text: "" };
      s.text += f.text;
      streaming.set(key, s);
      schedule();
    } else if (f.type === "error") {
      problem.textContent = `${f.error.code}: ${f.error.message}`;
    }
  }

  function schedule() {
    if (!frame) frame = requestAnimationFrame(render);
  }

  function render() {
    frame = 0;
    const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 120;
    const pending = new Set(session?.pendingApprovals.map((p) => p.requestId));
    const els: HTMLElement[] = [];
    const seen = new Set<string>();
    for (const item of buildTranscript(events)) {
      const key = `${item.kind}:${item.seq}`;
      const actionable = item.kind === "tool" && item.requestId !== undefined && pending.has(item.requestId);
      const sig = JSON.stringify(item) + actionable;
      let r = rendered.get(key);
      if (!r || r.sig !== sig) {
        r = { sig, el: renderItem(item, actionable) };
        rendered.set(key, r);
      }
      seen.add(key);
      els.push(r.el);
    }
    for (const k of rendered.keys()) if (!seen.has(k)) rendered.delete(k);
    log.replaceChildren(...els);
    live.replaceChildren(
      ...[...streaming.values()].map((s) =>
        s.kind === "text"
          ? h(
              "div",
              { class: "item msg assistant streaming" },
              h("div", { class: "who" }, "Assistant"),
              h("div", { class: "text" }, s.text),
            )
          : h("details", { class: "item thinking streaming" }, h("summary", {}, "Thinking…"), h("pre", {}, s.text)),
      ),
    );
    log.setAttribute("aria-busy", String(streaming.size > 0));
    if (atBottom) window.scrollTo({ top: document.body.scrollHeight });
  }

  function renderItem(item: TranscriptItem, actionable: boolean): HTMLElement {
    const li = h("li", { class: `item ${item.kind}`, "data-seq": String(item.seq) });
    switch (item.kind) {
      case "message":
        li.classList.add("msg", item.role);
        li.append(
          h(
            "div",
            { class: "who" },
            item.role === "user" ? "You" : "Assistant",
            item.source &&
              !["http", "ws"].includes(item.source) &&
              h("span", { class: "muted" }, ` via ${item.source}`),
          ),
          h("div", { class: "text" }, item.text),
        );
        break;
      case "thinking":
        li.append(h("details", {}, h("summary", {}, "Thinking"), h("pre", {}, item.text)));
        break;
      case "tool": {
        li.dataset.state = item.state;
        li.append(
          h(
            "div",
            { class: "tool-head" },
            h("code", { class: "tool-name" }, item.tool),
            h("span", { class: "badge", "data-state": item.state }, item.state.replace("_", " ")),
            item.recovery &&
              h(
                "span",
                { class: "badge recovery" },
                item.recovery === "rerun" ? "re-run after restart" : "needs review",
              ),
          ),
          block("Arguments", item.args),
        );
        if (item.response !== undefined) li.append(block("Response", item.response));
        if (actionable) {
          const requestId = item.requestId!;
          li.append(
            h(
              "div",
              { class: "approval", role: "group", "aria-label": `Approval for ${item.tool}` },
              h("span", {}, "This call needs your approval."),
              h("button", { type: "button", onclick: () => void decide(requestId, "approve") }, "Approve"),
              h(
                "button",
                { type: "button", class: "danger", onclick: () => void decide(requestId, "reject") },
                "Reject",
              ),
            ),
          );
        }
        break;
      }
      case "error":
        li.setAttribute("role", "note");
        li.append(h("strong", {}, `Error (${item.code}): `), item.message);
        break;
      case "recovery":
        li.append(
          `Recovered after a restart: ${item.rerun.length} call(s) re-run, ${item.needsReview.length} need review.`,
        );
        break;
      case "turn":
        li.dataset.reason = item.reason;
        li.append(`turn ${item.reason}`);
        break;
      case "record":
        li.append(
          item.revision !== undefined
            ? `record ${item.topic}: revision ${item.revision}`
            : `record ${item.topic}: entry ${item.entry}`,
        );
        break;
      case "fork":
        li.append(
          "forked from ",
          h("a", { href: `/s/${item.sessionId}`, "data-nav": true }, item.sessionId.slice(0, 12)),
          ` at seq ${item.throughSeq}`,
        );
        break;
    }
    return li;
  }

  function block(label: string, value: unknown) {
    const text = pretty(value);
    const pre = h("pre", {}, text);
    return text.length > LONG_TEXT || text.split("\n").length > 12
      ? h("details", { class: "block" }, h("summary", {}, `${label} (${text.length} chars)`), pre)
      : h("div", { class: "block" }, h("span", { class: "label" }, label), pre);
  }

  (async () => {
    try {
      const first = await client.getSession(id);
      if (left) return;
      setSession(first);
      conn = client.connect(id, {
        after: Math.max(0, first.highWater - WINDOW),
        onFrame,
        onState: (s) => {
          linkState.dataset.state = s;
          linkState.textContent = s === "open" ? "● live" : s === "connecting" ? "reconnecting…" : "offline";
        },
        onFatal: (err) => {
          if (!handleAuth(err)) problem.textContent = `Disconnected: ${errorText(err)}`;
        },
      });
    } catch (err) {
      if (handleAuth(err)) return;
      app.replaceChildren(
        h("a", { href: "/", "data-nav": true, class: "back" }, "← Sessions"),
        h(
          "p",
          { class: "error", role: "alert" },
          err instanceof HighwaterError && err.status === 404 ? "No such session." : errorText(err),
        ),
      );
    }
  })();

  leave = () => {
    left = true;
    conn?.close();
    conn = null;
    if (frame) cancelAnimationFrame(frame);
  };
}

route();

/**
 * CONTRACT §6: the open turn's wait, with a Resume form for a `wait_for` or a spent step budget
 * (which says how many model calls the turn has used); a child's wait ends by itself.
 */
function waitPanel(client: HighwaterClient, s: Session, report: (message: string) => void): HTMLElement {
  const w = s.wait!;
  const what =
    w.kind === "budget"
      ? `Paused at the step budget: ${w.modelCalls ?? s.maxModelCallsPerTurn} of ${s.maxModelCallsPerTurn} model calls used this turn.`
      : w.kind === "child"
        ? "Waiting for a sub-session to finish."
        : `Waiting: ${w.reason ?? "for a resume"}`;
  if (w.kind === "child") return h("section", { class: "banner wait", "aria-label": "Wait" }, h("strong", {}, what));
  const text = h("textarea", {
    rows: "2",
    "aria-label": "Resume text",
    placeholder: w.kind === "budget" ? "Optional note for the agent" : "Answer for the agent",
  });
  const button = h("button", { type: "submit" }, w.kind === "budget" ? "Resume (grant another budget)" : "Resume");
  return h(
    "section",
    { class: "banner wait", "aria-label": "Wait" },
    h("strong", {}, what),
    h(
      "form",
      {
        class: "resume",
        onsubmit: async (e: SubmitEvent) => {
          e.preventDefault();
          button.disabled = true;
          try {
            await client.resume(s.id, w.runId, w.waitId, text.value);
          } catch (err) {
            button.disabled = false;
            if (!handleAuth(err)) report(`Resume failed: ${errorText(err)}`);
          }
        },
      },
      text,
      button,
    ),
  );
}
