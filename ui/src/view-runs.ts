/** `<hw-runs>`: the session's triggers and runs (each turn a run, scheduled ones with their trigger). */
import { html, nothing } from "lit";
import type { Run, Trigger } from "../../src/client";
import { errorText } from "./format";
import { TurnView } from "./turn-view";

type Lists = { runs: Run[]; triggers: Trigger[]; runsNext?: string; triggersNext?: string };

/** The first page of each list; "More triggers" and "Older runs" read the next (docs/API.md#runs). */
class HwRuns extends TurnView<Lists> {
  protected override async read(): Promise<Lists> {
    const [r, t] = await Promise.all([this.client.runs(this.sessionId), this.client.triggers(this.sessionId)]);
    return { runs: r.runs, triggers: t.triggers, runsNext: r.next, triggersNext: t.next };
  }

  async #more(list: "runs" | "triggers") {
    const d = this.data;
    if (!d) return;
    try {
      if (list === "runs") {
        const page = await this.client.runs(this.sessionId, { before: d.runsNext });
        this.data = { ...d, runs: [...d.runs, ...page.runs], runsNext: page.next };
      } else {
        const page = await this.client.triggers(this.sessionId, { after: d.triggersNext });
        this.data = { ...d, triggers: [...d.triggers, ...page.triggers], triggersNext: page.next };
      }
    } catch (err) {
      this.error = errorText(err);
    }
  }

  override render() {
    if (this.error) return html`<p class="error" role="alert">${this.error}</p>`;
    const d = this.data;
    if (!d) return html`<p class="muted">Loading runs…</p>`;
    const parent = this.session?.parentId;
    return html`
      ${parent ? html`<p>A sub-session of <a href="/s/${parent}" data-nav>${parent.slice(0, 12)}…</a></p>` : nothing}
      <h2>Triggers</h2>
      ${
        d.triggers.length === 0
          ? html`<p class="muted empty">No triggers: scheduled runs appear here once one is created.</p>`
          : html`<ul class="triggers">
              ${d.triggers.map(
                (t) => html`<li><code>${t.name}</code> ${JSON.stringify(t.schedule)}
                  ${t.nextAt ? html`<span class="muted">next ${new Date(t.nextAt).toLocaleString()}</span>` : nothing}</li>`,
              )}
            </ul>`
      }
      ${d.triggersNext ? html`<button type="button" @click=${() => this.#more("triggers")}>More triggers</button>` : nothing}
      <h2>Runs</h2>
      ${
        d.runs.length === 0
          ? html`<p class="muted empty">No runs yet.</p>`
          : html`<table class="runs">
              <thead><tr><th>run</th><th>trigger</th><th>state</th><th>outcome</th><th>started</th></tr></thead>
              <tbody>
                ${d.runs.map(
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
      }
      ${d.runsNext ? html`<button type="button" @click=${() => this.#more("runs")}>Older runs</button>` : nothing}`;
  }
}
customElements.define("hw-runs", HwRuns);
