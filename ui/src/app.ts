/**
 * The browser console: a token form, the create form and live session list, and one session's
 * views (`session-view.ts`). Rendered with lit-html; the token lives in `sessionStorage`, so it
 * leaves with the tab, and never in a URL.
 */
import { html, nothing, render, type TemplateResult } from "lit-html";
import { repeat } from "lit-html/directives/repeat.js";
import {
  HighwaterClient,
  HighwaterError,
  type ProviderInfo,
  type Session,
  type SessionOptions,
} from "../../src/client";
import { modelLabel, mountSession, statusPill } from "./session-view";

const TOKEN_KEY = "highwater.token";
const DRAFT_KEY = "highwater.draft.";
const LIST_EVERY_MS = 3_000;
const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"];
/** Tools with side effects: the ones worth asking about. */
const APPROVABLE = ["write_file", "edit_file", "delete_file", "http_fetch"];
const DEMO_TASK = "Draft the release notes for version two";

const app = document.getElementById("app")!;
const topActions = document.getElementById("top-actions")!;
let client: HighwaterClient | null = null;
let leave: () => void = () => {};

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

function errorText(err: unknown): string {
  return err instanceof HighwaterError ? `${err.code}: ${err.message}` : String(err);
}

/** A 401 anywhere means the stored token is wrong: forget it and ask again. */
function handleAuth(err: unknown): boolean {
  if (err instanceof HighwaterError && err.status === 401) {
    leave();
    leave = () => {};
    sessionStorage.removeItem(TOKEN_KEY);
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
  const token = sessionStorage.getItem(TOKEN_KEY);
  client = token ? new HighwaterClient({ baseUrl: location.origin, token }) : null;
  render(
    token
      ? html`<button
          type="button"
          class="link"
          @click=${() => {
            sessionStorage.removeItem(TOKEN_KEY);
            route();
          }}
        >Forget token</button>`
      : nothing,
    topActions,
  );
  if (!client) return renderTokenForm();
  const m = /^\/s\/([^/]+)\/?$/.exec(location.pathname);
  if (m) {
    const id = decodeURIComponent(m[1]!);
    const draft = sessionStorage.getItem(DRAFT_KEY + id) ?? undefined;
    sessionStorage.removeItem(DRAFT_KEY + id);
    leave = mountSession({ client, id, root: app, handleAuth, errorText, randomKey, ...(draft ? { draft } : {}) });
  } else leave = mountHome(client);
}

function renderTokenForm(problem?: string) {
  document.title = "highwater";
  let error = problem ?? "";
  const draw = () =>
    render(
      html`<form
        class="card"
        @submit=${async (e: SubmitEvent) => {
          e.preventDefault();
          const input = (e.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>("#token")!;
          const token = input.value.trim();
          try {
            await new HighwaterClient({ baseUrl: location.origin, token }).listSessions({ limit: 1 });
            sessionStorage.setItem(TOKEN_KEY, token);
            route();
          } catch (err) {
            error =
              err instanceof HighwaterError && err.status === 401 ? "That token was not accepted." : errorText(err);
            draw();
          }
        }}
      >
        <h1>Connect</h1>
        <p>
          Paste an API token: one of the Worker's <code>API_TOKENS</code>. <code>npm start</code> prints one as
          <code>highwater: token …</code>. It stays in this tab only (session storage).
        </p>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" required spellcheck="false" />
        <button type="submit">Connect</button>
        <p class="error" role="alert">${error}</p>
      </form>`,
      app,
    );
  draw();
  app.querySelector<HTMLInputElement>("#token")?.focus();
}

// ---- home: create form and the live list ------------------------------------------------

type Form = {
  title: string;
  system: string;
  provider: string;
  name: string;
  contextWindow: string;
  approve: Set<string>;
  approvePaths: string;
  locationHint: string;
  jurisdiction: string;
};

const emptyForm = (): Form => ({
  title: "",
  system: "",
  provider: "",
  name: "",
  contextWindow: "",
  approve: new Set(),
  approvePaths: "",
  locationHint: "",
  jurisdiction: "",
});

/** The form as `SessionOptions`: only what was filled in. */
export function formOptions(f: Form): SessionOptions {
  const paths = f.approvePaths
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);
  const fileTools = new Set(["write_file", "edit_file", "delete_file"]);
  const approvals = [...f.approve].map((tool) =>
    paths.length && fileTools.has(tool) ? { tool, match: { path: paths } } : { tool },
  );
  const model: NonNullable<SessionOptions["model"]> = {};
  if (f.provider) model.provider = f.provider as NonNullable<SessionOptions["model"]>["provider"];
  if (f.name.trim()) model.name = f.name.trim();
  if (f.contextWindow.trim()) model.contextWindow = Number(f.contextWindow);
  return {
    ...(f.title.trim() ? { title: f.title.trim() } : {}),
    ...(f.system.trim() ? { system: f.system } : {}),
    ...(Object.keys(model).length ? { model } : {}),
    ...(approvals.length ? { approvals } : {}),
    ...(f.locationHint ? { locationHint: f.locationHint as SessionOptions["locationHint"] } : {}),
    ...(f.jurisdiction ? { jurisdiction: f.jurisdiction as "eu" | "fedramp" } : {}),
  };
}

function mountHome(client: HighwaterClient): () => void {
  document.title = "Sessions — highwater";
  let form = emptyForm();
  let providers: ProviderInfo[] | null = null;
  let formError = "";
  let creating = false;
  let sessions: Session[] | null = null;
  let next: string | undefined;
  let expanded = false;
  let firstPage = 0;
  let listError = "";
  let draft: string | undefined;
  let left = false;

  const draw = () => {
    if (!left) render(home(), app);
  };

  async function loadProviders() {
    try {
      providers = (await client.providers()).providers;
      const d = providers.find((p) => p.isDefault) ?? providers[0];
      if (d && !form.provider) form.provider = d.name;
    } catch (err) {
      if (!handleAuth(err)) providers = [];
    }
    draw();
  }

  /** The first page, refreshed while the list is on screen (status, open turn, approvals). */
  async function loadList(more = false) {
    try {
      const page = await client.listSessions(more && next ? { before: next } : {});
      if (more) {
        sessions = [...(sessions ?? []), ...page.sessions];
        next = page.next;
        expanded = true;
      } else {
        // A refresh replaces the first page and keeps what "More" loaded after it.
        const fresh = new Set(page.sessions.map((s) => s.id));
        const rest = expanded ? (sessions ?? []).slice(firstPage).filter((s) => !fresh.has(s.id)) : [];
        sessions = [...page.sessions, ...rest];
        firstPage = page.sessions.length;
        if (!expanded) next = page.next;
      }
      listError = "";
    } catch (err) {
      if (!handleAuth(err)) listError = errorText(err);
    }
    draw();
  }

  function preset() {
    form = {
      ...emptyForm(),
      provider: providers?.find((p) => p.demo)?.name ?? form.provider,
      title: "Demo: release notes",
      approve: new Set(["write_file"]),
      approvePaths: "notes/task.md",
    };
    draft = DEMO_TASK;
    draw();
  }

  async function create(e: SubmitEvent) {
    e.preventDefault();
    creating = true;
    formError = "";
    draw();
    try {
      const s = await client.createSession(formOptions(form));
      if (draft) sessionStorage.setItem(DRAFT_KEY + s.id, draft);
      navigate(`/s/${s.id}`);
    } catch (err) {
      if (!handleAuth(err)) formError = errorText(err);
      creating = false;
      draw();
    }
  }

  const field =
    (k: keyof Omit<Form, "approve">) =>
    (e: Event): void => {
      form = { ...form, [k]: (e.target as HTMLInputElement).value };
      draw();
    };

  const home = (): TemplateResult => {
    const chosen = providers?.find((p) => p.name === form.provider);
    return html`
      <form class="card create" @submit=${create}>
        <div class="form-head">
          <h2>Start a session</h2>
          <button type="button" class="secondary" @click=${preset}>Demo preset</button>
        </div>
        <p class="muted">
          The demo preset uses the offline demo model and asks for your approval before it writes
          <code>notes/task.md</code>.
        </p>
        <label for="new-title">Title</label>
        <input id="new-title" maxlength="500" placeholder="e.g. Draft the release notes" .value=${form.title} @input=${field("title")} />
        <label for="new-system">System prompt</label>
        <textarea id="new-system" rows="2" maxlength="65536" placeholder="Optional extra instructions" .value=${form.system} @input=${field("system")}></textarea>
        <fieldset>
          <legend>Model</legend>
          <div class="row">
            <span class="cell">
              <label for="new-provider">Provider</label>
              <select id="new-provider" .value=${form.provider} @change=${field("provider")}>
                ${(providers ?? []).map(
                  (p) => html`<option value=${p.name} ?selected=${p.name === form.provider}>
                    ${p.name}${p.demo ? " (offline demo)" : ""}${p.isDefault ? " — default" : ""}
                  </option>`,
                )}
              </select>
            </span>
            <span class="cell">
              <label for="new-model">Name</label>
              <input id="new-model" placeholder=${chosen?.defaultModel ?? "the provider's default"} .value=${form.name} @input=${field("name")} />
            </span>
            <span class="cell">
              <label for="new-window">Context window</label>
              <input id="new-window" type="number" min="1024" step="1024" placeholder="128000" .value=${form.contextWindow} @input=${field("contextWindow")} />
            </span>
          </div>
        </fieldset>
        <fieldset>
          <legend>Approval rules: ask me before</legend>
          <div class="row checks">
            ${APPROVABLE.map(
              (t) => html`<label class="check"><input
                  type="checkbox"
                  .checked=${form.approve.has(t)}
                  @change=${(e: Event) => {
                    const approve = new Set(form.approve);
                    if ((e.target as HTMLInputElement).checked) approve.add(t);
                    else approve.delete(t);
                    form = { ...form, approve };
                    draw();
                  }}
                /><code>${t}</code></label>`,
            )}
          </div>
          <label for="new-paths">Only for these paths (comma-separated; file tools)</label>
          <input id="new-paths" placeholder="every path" .value=${form.approvePaths} @input=${field("approvePaths")} />
        </fieldset>
        <fieldset>
          <legend>Placement</legend>
          <div class="row">
            <span class="cell">
              <label for="new-location">Location hint</label>
              <select id="new-location" .value=${form.locationHint} @change=${field("locationHint")}>
                <option value="">automatic</option>
                ${LOCATION_HINTS.map((h) => html`<option value=${h} ?selected=${h === form.locationHint}>${h}</option>`)}
              </select>
            </span>
            <span class="cell">
              <label for="new-jurisdiction">Jurisdiction</label>
              <select id="new-jurisdiction" .value=${form.jurisdiction} @change=${field("jurisdiction")}>
                <option value="">none</option>
                <option value="eu" ?selected=${form.jurisdiction === "eu"}>eu</option>
                <option value="fedramp" ?selected=${form.jurisdiction === "fedramp"}>fedramp</option>
              </select>
            </span>
          </div>
        </fieldset>
        <button type="submit" ?disabled=${creating}>New session</button>
        <p class="error" role="alert">${formError}</p>
      </form>
      <h2>Sessions</h2>
      ${sessionList()}
    `;
  };

  const sessionList = (): TemplateResult => {
    if (listError && !sessions) return html`<p class="error" role="alert">${listError}</p>`;
    if (!sessions) return html`<p class="muted">Loading…</p>`;
    if (sessions.length === 0)
      return html`<p class="muted empty">No sessions yet. Start one above: the Demo preset works offline, with no API key.</p>`;
    return html`<ul class="sessions" aria-label="Your sessions">
      ${repeat(
        sessions,
        (s) => s.id,
        (s) => html`<li data-id=${s.id}>
          <a href=${`/s/${s.id}`} data-nav>${s.title || "Untitled session"}</a>
          ${statusPill(s.status)} ${s.openTurn ? html`<span class="badge">turn open</span>` : nothing}
          ${
            s.pendingApprovals.length
              ? html`<span class="badge approvals" data-state="waiting_approval">${s.pendingApprovals.length} approval${s.pendingApprovals.length === 1 ? "" : "s"} waiting</span>`
              : nothing
          }
          ${modelLabel(s)}
          <span class="muted">${s.highWater} events · updated ${new Date(s.updatedAt).toLocaleString()}</span>
        </li>`,
      )}
      ${
        next
          ? html`<li><button type="button" class="link" @click=${() => void loadList(true)}>More</button></li>`
          : nothing
      }
    </ul>
    ${listError ? html`<p class="error" role="alert">${listError}</p>` : nothing}`;
  };

  draw();
  void loadProviders();
  void loadList();
  const timer = setInterval(() => {
    if (document.visibilityState === "visible") void loadList();
  }, LIST_EVERY_MS);
  return () => {
    left = true;
    clearInterval(timer);
  };
}

route();
