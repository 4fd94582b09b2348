/**
 * `<hw-create-form>`: starts a session. The tools it lists, each with its source and effect,
 * are `GET /v1/tools` (docs/API.md#tools): approval rules are picked from them. A server
 * without that route gets the built-in names. MCP servers it lists as unavailable are shown
 * with a "Connect" button when they need the user's authorization (`<hw-mcp-connect>`).
 */
import { html, LitElement, nothing } from "lit";
import type { HighwaterClient, ProviderInfo, SessionOptions, ToolInfo, ToolList } from "../../src/client";
import { JURISDICTIONS, LOCATION_HINTS } from "../../src/contract/session";
import { errorText } from "./format";
import "./mcp-connect";
import { handleAuth, navigate, saveDraft } from "./shell";

const DEMO_TASK = "Draft the release notes for version two";
const FILE_TOOLS = new Set(["write_file", "edit_file", "delete_file"]);
/** The built-in tools, for a server older than `GET /v1/tools`. */
const BUILTIN_NAMES = [
  "list_files",
  "read_file",
  "search_files",
  "write_file",
  "edit_file",
  "delete_file",
  "http_fetch",
  "read_archive",
  "wait_for",
  "spawn_session",
  "read_record",
  "write_record",
  "append_record_entry",
];

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

const emptyForm = (provider = ""): Form => ({
  title: "",
  system: "",
  provider,
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
  const approvals = [...f.approve].map((tool) =>
    paths.length && FILE_TOOLS.has(tool) ? { tool, match: { path: paths } } : { tool },
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
    ...(f.locationHint ? { locationHint: f.locationHint } : {}),
    ...(f.jurisdiction ? { jurisdiction: f.jurisdiction } : {}),
  };
}

class HwCreateForm extends LitElement {
  static override properties = {
    client: { attribute: false },
    form: { state: true },
    providers: { state: true },
    tools: { state: true },
    unavailable: { state: true },
    error: { state: true },
    creating: { state: true },
  };
  declare client: HighwaterClient;
  declare form: Form;
  declare providers: ProviderInfo[] | null;
  declare tools: Pick<ToolInfo, "name" | "source" | "effect">[] | null;
  declare unavailable: ToolList["unavailable"];
  declare error: string;
  declare creating: boolean;
  #draft: string | undefined;

  constructor() {
    super();
    this.form = emptyForm();
    this.providers = null;
    this.tools = null;
    this.unavailable = [];
    this.error = "";
    this.creating = false;
  }

  protected override createRenderRoot() {
    return this;
  }

  override connectedCallback() {
    super.connectedCallback();
    void this.#load();
  }

  async #load() {
    this.client.providers().then(
      ({ providers }) => {
        this.providers = providers;
        const d = providers.find((p) => p.isDefault) ?? providers[0];
        if (d && !this.form.provider) this.form = { ...this.form, provider: d.name };
      },
      (err) => {
        if (!handleAuth(this, err)) this.providers = [];
      },
    );
    try {
      const listed = await this.client.tools();
      this.tools = listed.tools;
      this.unavailable = listed.unavailable ?? [];
    } catch (err) {
      if (handleAuth(this, err)) return;
      // An older server (404) or none listed: the built-ins, whose effects the server decides.
      this.tools = BUILTIN_NAMES.map((name) => ({ name, source: "builtin", effect: "by-arguments" }));
    }
  }

  #preset() {
    this.form = {
      ...emptyForm(this.providers?.find((p) => p.demo)?.name ?? this.form.provider),
      title: "Demo: release notes",
      approve: new Set(["write_file"]),
      approvePaths: "notes/task.md",
    };
    this.#draft = DEMO_TASK;
  }

  async #create(e: SubmitEvent) {
    e.preventDefault();
    this.creating = true;
    this.error = "";
    try {
      const s = await this.client.createSession(formOptions(this.form));
      if (this.#draft) saveDraft(s.id, this.#draft);
      navigate(`/s/${s.id}`);
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
      this.creating = false;
    }
  }

  #field(k: keyof Omit<Form, "approve">) {
    return (e: Event) => {
      this.form = { ...this.form, [k]: (e.target as HTMLInputElement).value };
    };
  }

  #toggle(tool: string, on: boolean) {
    const approve = new Set(this.form.approve);
    if (on) approve.add(tool);
    else approve.delete(tool);
    this.form = { ...this.form, approve };
  }

  override render() {
    const f = this.form;
    const chosen = this.providers?.find((p) => p.name === f.provider);
    return html`<form class="card create" @submit=${this.#create}>
      <div class="form-head">
        <h2>Start a session</h2>
        <button type="button" class="secondary" @click=${this.#preset}>Demo preset</button>
      </div>
      <p class="muted">
        The demo preset uses the offline demo model and asks for your approval before it writes
        <code>notes/task.md</code>.
      </p>
      <label for="new-title">Title</label>
      <input id="new-title" maxlength="500" placeholder="e.g. Draft the release notes" .value=${f.title} @input=${this.#field("title")} />
      <label for="new-system">System prompt</label>
      <textarea id="new-system" rows="2" maxlength="65536" placeholder="Optional extra instructions" .value=${f.system} @input=${this.#field("system")}></textarea>
      <fieldset>
        <legend>Model</legend>
        <div class="row">
          <span class="cell fit">
            <label for="new-provider">Provider</label>
            <select id="new-provider" .value=${f.provider} @change=${this.#field("provider")}>
              ${(this.providers ?? []).map(
                (p) =>
                  html`<option value=${p.name} ?selected=${p.name === f.provider}>${p.name}${p.demo ? " (offline demo)" : ""}${p.isDefault ? " — default" : ""}</option>`,
              )}
            </select>
          </span>
          <span class="cell">
            <label for="new-model">Name</label>
            <input id="new-model" placeholder=${chosen?.defaultModel ?? "the provider's default"} .value=${f.name} @input=${this.#field("name")} />
          </span>
          <span class="cell">
            <label for="new-window">Context window</label>
            <input id="new-window" type="number" min="1024" step="1024" placeholder="128000" .value=${f.contextWindow} @input=${this.#field("contextWindow")} />
          </span>
        </div>
      </fieldset>
      <fieldset class="tools">
        <legend>Tools: ask me before</legend>
        ${this.tools === null ? html`<p class="muted">Loading the tools…</p>` : nothing}
        <hw-mcp-connect .client=${this.client} .unavailable=${this.unavailable}></hw-mcp-connect>
        <div class="row checks">
          ${(this.tools ?? []).map(
            (t) => html`<label class="check" data-tool=${t.name}><input
                type="checkbox"
                .checked=${f.approve.has(t.name)}
                @change=${(e: Event) => this.#toggle(t.name, (e.target as HTMLInputElement).checked)}
              /><code>${t.name}</code><span class="badge source" title="source">${t.source}</span>${
                t.effect !== "by-arguments"
                  ? html`<span class="badge effect" title="effect">${t.effect}</span>`
                  : nothing
              }</label>`,
          )}
        </div>
        <label for="new-paths">Only for these paths (comma-separated; file tools)</label>
        <input id="new-paths" placeholder="every path" .value=${f.approvePaths} @input=${this.#field("approvePaths")} />
      </fieldset>
      <fieldset>
        <legend>Placement</legend>
        <div class="row">
          <span class="cell">
            <label for="new-location">Location hint</label>
            <select id="new-location" .value=${f.locationHint} @change=${this.#field("locationHint")}>
              <option value="">automatic</option>
              ${LOCATION_HINTS.map((h) => html`<option value=${h} ?selected=${h === f.locationHint}>${h}</option>`)}
            </select>
          </span>
          <span class="cell">
            <label for="new-jurisdiction">Jurisdiction</label>
            <select id="new-jurisdiction" .value=${f.jurisdiction} @change=${this.#field("jurisdiction")}>
              <option value="">none</option>
              ${JURISDICTIONS.map((j) => html`<option value=${j} ?selected=${j === f.jurisdiction}>${j}</option>`)}
            </select>
          </span>
        </div>
      </fieldset>
      <button type="submit" ?disabled=${this.creating}>New session</button>
      <p class="error" role="alert">${this.error}</p>
    </form>`;
  }
}
customElements.define("hw-create-form", HwCreateForm);
