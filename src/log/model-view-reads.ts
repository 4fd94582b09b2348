/**
 * Reads through the model view (docs/design.md#6-context-budget-compaction-offload): the
 * rebuildable cache beside `events` that holds what the model sees of an event (the placeholder
 * of an offloaded result), so a read of what the model saw never reads an archived body.
 */
import { canonical } from "../contract/canonical";
import type { Event } from "../contract/event";
import type { SqlLike } from "../storage/sql";
import { type EventRow, modelViewOf, parseRow } from "./event-rows";

/** A page of events as the model saw them; `more` unless it read through its bound. */
export type ViewPage = { events: Event[]; more: boolean };

// COALESCE evaluates lazily: an event with a view row never has its own body or digest read
// (the digest column follows the body in the row, so reading it would walk the body too).
const VIEW_ROWS = `SELECT e.seq AS seq, COALESCE(v.body, e.body) AS body, COALESCE(v.digest, e.digest) AS digest
  FROM events e LEFT JOIN model_view v ON v.seq = e.seq WHERE e.seq > ? AND e.seq <= ?`;

/** What a context build reads of the view (a fake in unit tests). */
export type ContextReads = Pick<ModelViewReads, "contextEventsAfter">;

/**
 * The view's reads, beside the store rather than inside it: a session wires one per object
 * (session/wiring.ts), and a message's append never loads this module.
 */
export class ModelViewReads {
  #ready = false;

  constructor(
    private readonly sql: SqlLike,
    private readonly transactionSync: <T>(fn: () => T) => T,
    private readonly highWater: () => number,
  ) {}

  /**
   * Visible events and `modelRequest` markers after `after` through `through` (a fork reads to
   * its `throughSeq`), ascending: a context build costs the same with 3 or 300 results archived.
   */
  contextEventsAfter(after: number, through = Number.MAX_SAFE_INTEGER): Event[] {
    this.#ensure();
    return this.sql
      .exec<EventRow>(
        `${VIEW_ROWS} AND (e.visibility = 'visible' OR e.kind = 'modelRequest') ORDER BY e.seq`,
        after,
        through,
      )
      .toArray()
      .map(parseRow);
  }

  /**
   * Events of every visibility after `after` through `through`, ascending; stops after the row
   * that brings the bodies read past `maxBytes` (at least one event), or at `maxEvents`. For
   * readers that show what the model saw (docs/API.md#chat-ai-sdk-ui-message-stream).
   */
  pageAfter(after: number, through: number, maxEvents: number, maxBytes: number): ViewPage {
    this.#ensure();
    const out: Event[] = [];
    let bytes = 0;
    // Rows are read one at a time: the page stops before SQLite reads further bodies.
    for (const row of this.sql.exec<EventRow>(`${VIEW_ROWS} ORDER BY e.seq LIMIT ?`, after, through, maxEvents)) {
      out.push(parseRow(row));
      bytes += row.body.length;
      if (bytes > maxBytes) return { events: out, more: true };
    }
    return { events: out, more: out.length === maxEvents };
  }

  /**
   * Rewrites the view from the log in one transaction, a page of offloaded results at a time
   * (only their rows leave SQLite).
   */
  rebuild(): void {
    this.transactionSync(() => {
      this.sql.exec("DELETE FROM model_view");
      let after = 0;
      for (;;) {
        const page = this.sql
          .exec<EventRow>(
            // Results are not in the kind index (migrations/0007): one walk by seq over the log, once.
            "SELECT seq, body, digest FROM events WHERE seq > ? AND kind = 'functionResponse' AND json_extract(body, '$.actions.stateDelta.offload.sha256') IS NOT NULL ORDER BY seq LIMIT 64",
            after,
          )
          .toArray();
        for (const row of page) {
          const view = modelViewOf(JSON.parse(row.body) as Event);
          if (view)
            this.sql.exec(
              "INSERT INTO model_view (seq, body, digest) VALUES (?, ?, ?)",
              row.seq,
              canonical(view),
              row.digest,
            );
        }
        if (page.length < 64) break;
        after = page[page.length - 1]!.seq;
      }
      this.sql.exec("INSERT OR REPLACE INTO caches (name, built_through) VALUES ('model_view', ?)", this.highWater());
    });
  }

  /** Rebuilds the view when it is not known to be complete (upgraded or lost). */
  #ensure(): void {
    if (this.#ready) return;
    const built = this.sql.exec("SELECT 1 AS ok FROM caches WHERE name = 'model_view'").toArray().length > 0;
    if (!built) this.rebuild();
    this.#ready = true;
  }
}
