/** `<hw-composer>`: the message box, Send, Stop, and Resume for a wait. Its draft outlives the page. */
import { html, LitElement, nothing } from "lit";
import type { Session, SessionWait } from "../../src/client";
import type { SessionActions } from "./session-actions";
import { loadDraft, saveDraft } from "./shell";

/** What a wait is for, in words: the step budget says how many calls the turn has used. */
function waitText(wait: SessionWait, budget: number | undefined): string {
  if (wait.kind === "budget")
    return `Paused at the step budget: ${wait.modelCalls ?? "?"} of ${budget ?? "?"} model calls used this turn.`;
  if (wait.kind === "child") return "Waiting for a sub-session to finish.";
  return `Waiting${wait.reason ? `: ${wait.reason}` : " for a resume"}.`;
}

class HwComposer extends LitElement {
  static override properties = {
    session: { attribute: false },
    sessionId: { attribute: false },
    actions: { attribute: false },
    sending: { state: true },
  };
  declare session: Session | null;
  declare sessionId: string;
  declare actions: SessionActions;
  declare sending: boolean;
  #draft = "";

  constructor() {
    super();
    this.sending = false;
  }

  protected override createRenderRoot() {
    return this;
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has("sessionId")) this.#draft = loadDraft(this.sessionId);
  }

  get #input(): HTMLTextAreaElement {
    return this.querySelector("textarea")!;
  }

  #setDraft(text: string) {
    this.#draft = text;
    saveDraft(this.sessionId, text);
  }

  async #send(e: SubmitEvent) {
    e.preventDefault();
    const input = this.#input;
    const text = input.value;
    if (!text.trim()) return;
    this.sending = true;
    if (await this.actions.send(text)) {
      if (input.value === text) {
        input.value = "";
        this.#setDraft("");
      }
    }
    this.sending = false;
    input.focus();
  }

  async #resume(wait: SessionWait) {
    const input = this.#input;
    if (await this.actions.resume(wait, input.value.trim())) {
      input.value = "";
      this.#setDraft("");
    }
  }

  override render() {
    const s = this.session;
    const wait = s?.wait ?? null;
    return html`<form class="composer" @submit=${this.#send}>
      <label for="message" class="sr-only">Message</label>
      <textarea
        id="message"
        rows="3"
        .value=${this.#draft}
        @input=${(e: InputEvent) => this.#setDraft((e.target as HTMLTextAreaElement).value)}
        placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
        @keydown=${(e: KeyboardEvent) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            (e.currentTarget as HTMLTextAreaElement).form!.requestSubmit();
          }
        }}
      ></textarea>
      <div class="composer-actions">
        <button type="submit" ?disabled=${this.sending}>Send</button>
        <button type="button" class="danger" ?disabled=${!s?.openTurn} @click=${() => void this.actions.stop()}>Stop</button>
        ${wait && wait.kind !== "child" ? html`<button type="button" @click=${() => void this.#resume(wait)}>Resume</button>` : nothing}
      </div>
      ${wait ? html`<p class="wait-note muted" role="status">${waitText(wait, s?.maxModelCallsPerTurn)}</p>` : nothing}
    </form>`;
  }
}
customElements.define("hw-composer", HwComposer);
