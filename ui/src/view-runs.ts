/** `<hw-runs>`: the session's triggers and runs (each turn a run, scheduled ones with their trigger). */
import { html, nothing } from "lit";
import type { Run, Trigger } from "../../src/client";
import { TurnView } from "./turn-view";

class HwRuns extends TurnView<{ runs: Run[]; triggers: Trigger[] }> {
  protected override async read() {
    const [r, t] = await Promise.all([this.client.runs(this.sessionId), this.client.triggers(this.sessionId)]);
    return { runs: r.runs, triggers: t.triggers };
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
      }`;
  }
}
customElements.define("hw-runs", HwRuns);
