/** `<hw-skill-list>`: the skills a new session is shown (the deployment's and the caller's own), by name. */
import { html, LitElement } from "lit";
import type { HighwaterClient, SkillInfo } from "../../src/client";
import { errorText } from "./format";
import { handleAuth } from "./shell";

class HwSkillList extends LitElement {
  static override properties = {
    client: { attribute: false },
    skills: { state: true },
    error: { state: true },
  };
  declare client: HighwaterClient;
  declare skills: SkillInfo[] | null;
  declare error: string;

  constructor() {
    super();
    this.skills = null;
    this.error = "";
  }

  protected override createRenderRoot() {
    return this;
  }

  override connectedCallback() {
    super.connectedCallback();
    void this.#load();
  }

  async #load() {
    try {
      this.skills = (await this.client.skills()).skills;
      this.error = "";
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
    }
  }

  override render() {
    if (this.error) return html`<p class="error" role="alert">${this.error}</p>`;
    if (!this.skills) return html`<p class="muted">Loading…</p>`;
    if (this.skills.length === 0)
      return html`<p class="muted empty">No skills yet. Put one with <code>PUT /v1/skills/:name</code> (README, Skills).</p>`;
    return html`<ul class="skills" aria-label="Skills">
      ${this.skills.map(
        (s) => html`<li data-skill=${s.name}>
          <code class="skill-name">${s.name}</code>
          <span class="badge source" title="where the skill comes from">${s.source}</span>
          <span class="muted">${s.description}</span>
        </li>`,
      )}
    </ul>`;
  }
}
customElements.define("hw-skill-list", HwSkillList);
