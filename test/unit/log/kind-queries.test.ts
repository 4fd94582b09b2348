/**
 * docs/design.md#3-storage: the kind index holds no model output and no dispatch or result
 * (migrations/0007), so SQLite reads it only for a query that says the index's condition beside
 * its kind. Every query by an indexed kind in src/ must say so, or it walks the whole log.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

describe("queries by kind", () => {
  it("is readable by every query by kind in src/ (each says the index's condition)", () => {
    const root = join(__dirname, "../../../src");
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith(".ts")) files.push(p);
      }
    };
    walk(root);
    const byKind: string[] = [];
    for (const f of files) {
      // A statement's text runs from FROM events to the end of its string literal; the event
      // store's own `#rows(where)` adds the FROM to its condition.
      for (const m of readFileSync(f, "utf8").matchAll(/FROM events\b[^`"]*|#rows\(\s*"[^"]*/g)) {
        const statement = m[0];
        // A lookup of one seq goes by the primary key, not by kind; a join's `e.kind` filters a range of seqs.
        if (!/(?<![.\w])kind\s*(=|IN\b)/.test(statement) || /\bseq\s*=\s*(\?|\$\{)/.test(statement)) continue;
        // The kinds the index leaves out are read otherwise: by call (the call index) or by a walk by seq.
        if (/kind (= 'functionResponse'|IN \('functionResponse', 'permissionRequest'\))/.test(statement)) continue;
        byKind.push(`${f.slice(root.length + 1)}: ${statement.replace(/\s+/g, " ").slice(0, 80)}`);
        expect(statement, f).toContain("author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse')");
      }
    }
    // The queries by kind this test knows of (store, idempotency, approvals, traces, work, chat, checkpoints).
    expect(byKind.length).toBeGreaterThanOrEqual(14);
  });
});
