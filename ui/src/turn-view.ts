/**
 * A view that reads one thing from the server for the open session and reads it again when a
 * turn ends or the session changes (the context, the runs). Subclasses say what to read and how
 * to draw it; loading and errors are handled here once.
 */
import { LitElement } from "lit";
import type { HighwaterClient, Session } from "../../src/client";
import { errorText } from "./format";
import { handleAuth } from "./shell";

export abstract class TurnView<T> extends LitElement {
  static override properties = {
    client: { attribute: false },
    sessionId: { attribute: false },
    session: { attribute: false },
    turns: { attribute: false },
    head: { attribute: false },
    data: { state: true },
    error: { state: true },
  };
  declare client: HighwaterClient;
  declare sessionId: string;
  declare session: Session | null;
  declare turns: number;
  declare head: number;
  declare data: T | null;
  declare error: string;

  constructor() {
    super();
    this.data = null;
    this.error = "";
  }

  /** What this view shows, read from the server. */
  protected abstract read(): Promise<T>;

  protected override createRenderRoot() {
    return this;
  }

  override willUpdate(changed: Map<string, unknown>) {
    // Read again when a turn ends.
    if (changed.has("turns") || changed.has("sessionId")) void this.#load();
  }

  async #load() {
    try {
      this.data = await this.read();
      this.error = "";
    } catch (err) {
      if (!handleAuth(this, err)) this.error = errorText(err);
    }
  }
}
