/**
 * `<hw-mcp-connect>`: the MCP servers `GET /v1/tools` lists as `unavailable`
 * (docs/API.md#mcp-servers-behind-oauth). A server that `needs_authorization` gets a "Connect"
 * button: `POST /v1/mcp/:server/authorize`, then this tab goes to the authorization server; its
 * consent ends at `GET /v1/oauth/callback`, whose page links back here, where the server is
 * listed with its tools.
 */
import { html, LitElement, nothing } from "lit";
import type { HighwaterClient, ToolList } from "../../src/client";
import { errorText } from "./format";
import { handleAuth } from "./shell";

class HwMcpConnect extends LitElement {
  static override properties = {
    client: { attribute: false },
    unavailable: { attribute: false },
    busy: { state: true },
    error: { state: true },
  };
  declare client: HighwaterClient;
  declare unavailable: ToolList["unavailable"];
  declare busy: string;
  declare error: string;

  constructor() {
    super();
    this.unavailable = [];
    this.busy = "";
    this.error = "";
  }

  protected override createRenderRoot() {
    return this;
  }

  async #connect(server: string) {
    this.busy = server;
    this.error = "";
    try {
      const { url } = await this.client.authorizeMcp(server);
      window.location.assign(url);
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
      this.busy = "";
    }
  }

  override render() {
    if (this.unavailable.length === 0) return nothing;
    return html`<ul class="mcp-servers" aria-label="MCP servers not available">
        ${this.unavailable.map(
          (u) => html`<li data-server=${u.server} data-reason=${u.reason}>
            <code>${u.server}</code>
            ${
              u.reason === "needs_authorization"
                ? html`<span class="muted">needs your authorization</span>
                    <button type="button" class="secondary" ?disabled=${this.busy !== ""} @click=${() => void this.#connect(u.server)}>Connect ${u.server}</button>`
                : html`<span class="muted">unreachable: its tools are left out for now</span>`
            }
          </li>`,
        )}
      </ul>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}`;
  }
}
customElements.define("hw-mcp-connect", HwMcpConnect);
