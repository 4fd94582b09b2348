/**
 * On an incarnation's first decision, the open turn's part of the hash chain is verified: a log
 * that fails verification is never continued (docs/API.md#recovery-notices), the turn fails as
 * `log_corrupt` instead.
 */
import type { EventStore } from "../log/store";
import { verifySuffix } from "../log/verify";

type OpenTurn = { startSeq: number };

export class ChainCheck {
  #verified = false;

  /** Null once verified or with no turn open, or if the turn's suffix verifies; else what is wrong. */
  firstDecision(store: Pick<EventStore, "digestAt" | "rowsFrom">, turn: OpenTurn | null | undefined): string | null {
    if (this.#verified || !turn) return null;
    this.#verified = true;
    const problems = verifySuffix(store, turn.startSeq);
    return problems.length === 0 ? null : `the log failed verification: ${problems.slice(0, 3).join("; ")}`;
  }
}
