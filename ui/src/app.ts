/**
 * The browser console's shell: `<hw-app>` routes between the token form, the home page
 * (`<hw-create-form>` and `<hw-session-list>`), one session (`<hw-session>`) and the memory
 * (`<hw-memory>`). The token lives
 * in `sessionStorage`, so it leaves with the tab, and never in a URL.
 */
import { html, LitElement } from "lit";
import { keyed } from "lit/directives/keyed.js";
import { HighwaterClient, HighwaterError } from "../../src/client";
import { errorText } from "./format";
import { navigate, TOKEN_KEY, UNAUTHORIZED } from "./shell";
import "./create-form";
import "./memory-page";
import "./session-list";
import "./skill-list";
import "./session-page";

class HwApp extends LitElement {
  static override properties = { path: { state: true }, token: { state: true }, problem: { state: true } };
  declare path: string;
  declare token: string | null;
  declare problem: string;
  #client: { token: string; client: HighwaterClient } | null = null;

  constructor() {
    super();
    this.path = location.pathname;
    this.token = sessionStorage.getItem(TOKEN_KEY);
    this.problem = "";
  }

  protected override createRenderRoot() {
    return this;
  }

  #onPop = () => {
    this.path = location.pathname;
  };
  #onClick = (e: MouseEvent) => {
    const a = (e.target as Element).closest?.("a[data-nav]");
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    navigate(a.getAttribute("href")!);
  };
  #onUnauthorized = () => {
    this.#forget("That token was not accepted. Paste a valid API token.");
  };

  override connectedCallback() {
    super.connectedCallback();
    window.addEventListener("popstate", this.#onPop);
    document.addEventListener("click", this.#onClick);
    this.addEventListener(UNAUTHORIZED, this.#onUnauthorized);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    window.removeEventListener("popstate", this.#onPop);
    document.removeEventListener("click", this.#onClick);
  }

  #forget(problem = "") {
    sessionStorage.removeItem(TOKEN_KEY);
    this.token = null;
    this.problem = problem;
  }

  get client(): HighwaterClient | null {
    if (!this.token) return null;
    if (this.#client?.token !== this.token)
      this.#client = {
        token: this.token,
        client: new HighwaterClient({ baseUrl: location.origin, token: this.token }),
      };
    return this.#client.client;
  }

  async #connect(e: SubmitEvent) {
    e.preventDefault();
    const token = (e.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>("#token")!.value.trim();
    try {
      await new HighwaterClient({ baseUrl: location.origin, token }).listSessions({ limit: 1 });
      sessionStorage.setItem(TOKEN_KEY, token);
      this.problem = "";
      this.token = token;
    } catch (err) {
      this.problem =
        err instanceof HighwaterError && err.status === 401 ? "That token was not accepted." : errorText(err);
    }
  }

  override render() {
    const client = this.client;
    const top = document.getElementById("top-actions");
    if (top) top.hidden = !client;
    if (!client) {
      document.title = "highwater";
      return html`<form class="card" @submit=${this.#connect}>
        <h1>Connect</h1>
        <p>
          Paste an API token: one of the Worker's <code>API_TOKENS</code>. <code>npm start</code> prints one as
          <code>highwater: token …</code>. It stays in this tab only (session storage).
        </p>
        <label for="token">Token</label>
        <input id="token" type="password" autocomplete="off" required spellcheck="false" autofocus />
        <button type="submit">Connect</button>
        <p class="error" role="alert">${this.problem}</p>
      </form>`;
    }
    const m = /^\/s\/([^/]+)\/?$/.exec(this.path);
    // One element per session: another session is a new element, with its own fold and socket.
    const id = m ? decodeURIComponent(m[1]!) : null;
    if (id) return keyed(id, html`<hw-session .client=${client} .sessionId=${id}></hw-session>`);
    if (/^\/memory\/?$/.test(this.path)) return html`<hw-memory .client=${client}></hw-memory>`;
    document.title = "Sessions — highwater";
    return html`<hw-create-form .client=${client}></hw-create-form>
      <p><a href="/memory" data-nav>Memory</a>: what your sessions remember</p>
      <h2>Sessions</h2>
      <hw-session-list .client=${client}></hw-session-list>
      <h2>Skills</h2>
      <hw-skill-list .client=${client}></hw-skill-list>`;
  }

  forget() {
    this.#forget();
  }
}
customElements.define("hw-app", HwApp);

const app = document.createElement("hw-app") as HwApp;
document.getElementById("app")!.replaceChildren(app);
document.getElementById("top-actions")?.replaceChildren(
  Object.assign(document.createElement("button"), {
    type: "button",
    className: "link",
    textContent: "Forget token",
    onclick: () => app.forget(),
  }),
);
