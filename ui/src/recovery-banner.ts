/**
 * `<hw-recovery-banner>`: the session's recovery notice (docs/API.md#recovery-notices), naming each
 * re-run and interrupted call by its tool, its source and its effect, until it is dismissed.
 */
import { html, LitElement, nothing } from "lit";
import type { RecoveryNotice } from "../../src/client";
import { describeRecovery } from "../../src/contract/transcript";
import type { SessionFold } from "./fold";
import type { SessionActions } from "./session-actions";

class HwRecoveryBanner extends LitElement {
  static override properties = {
    notice: { attribute: false },
    fold: { attribute: false },
    rev: { attribute: false },
    actions: { attribute: false },
  };
  declare notice: RecoveryNotice;
  declare fold: SessionFold;
  declare rev: number;
  declare actions: SessionActions;

  protected override createRenderRoot() {
    return this;
  }

  #call(callId: string) {
    const call = this.fold.call(callId);
    const tool = call?.tool;
    return html`<li data-call=${callId}>
      <code>${tool ?? "call"}</code>
      ${tool ? html`<span class="badge source">${this.fold.source(tool)}</span>` : nothing}
      ${call?.effect ? html`<span class="badge effect">${call.effect}</span>` : nothing}
      <span class="muted">${callId}</span>
    </li>`;
  }

  override render() {
    const n = this.notice;
    return html`<section class="banner" aria-label="Recovery notice">
      <strong>This session recovered after a restart (event ${n.atSeq}).</strong>
      ${n.rerun.length ? html`<p>Re-run (safe to repeat):</p><ul class="rerun">${n.rerun.map((c) => this.#call(c))}</ul>` : nothing}
      ${
        n.needsReview.length
          ? html`<p>Needs review, interrupted (the side effect may or may not have happened):</p>
              <ul class="needs-review">${n.needsReview.map((c) => this.#call(c))}</ul>`
          : nothing
      }
      <p class="recovery-summary">${describeRecovery(n)}</p>
      <button type="button" class="dismiss" @click=${() => void this.actions.dismiss(n.atSeq)}>Dismiss</button>
    </section>`;
  }
}
customElements.define("hw-recovery-banner", HwRecoveryBanner);
