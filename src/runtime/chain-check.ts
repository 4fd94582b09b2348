/**
 * On an incarnation's first decision, the open turn's part of the hash chain is verified: a log
 * that fails verification is never continued (docs/API.md#recovery-notices), the turn fails as
 * `log_corrupt` instead.
 */
import type { EventDraft, EventStore } from "../log";
import { failureDrafts } from "./drafts";

type OpenTurn = { turnId: string; runId: string; startSeq: number };

export class ChainCheck {
  #verified = false;

  /** Null once verified or with no turn open; else the drafts that fail the turn, if its suffix is broken. */
  firstDecision(store: Pick<EventStore, "verifySuffix">, turn: OpenTurn | null | undefined): EventDraft[] | null {
    if (this.#verified || !turn) return null;
    this.#verified = true;
    const problems = store.verifySuffix(turn.startSeq);
    if (problems.length === 0) return null;
    return failureDrafts(
      { turnId: turn.turnId, runId: turn.runId },
      "log_corrupt",
      `the log failed verification: ${problems.slice(0, 3).join("; ")}`,
    );
  }
}
