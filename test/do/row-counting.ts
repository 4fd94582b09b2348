import type { SqlLike } from "../../src/storage";

/** A SQL handle over `sql` that adds up the rows SQLite read for every statement (`cursor.rowsRead`). */
export function rowCounting(sql: SqlLike | SqlStorage) {
  const cursors: { rowsRead: number }[] = [];
  const counted = {
    exec(query: string, ...bindings: unknown[]) {
      const cursor = (sql.exec as (q: string, ...b: unknown[]) => { rowsRead: number }).call(sql, query, ...bindings);
      cursors.push(cursor);
      return cursor;
    },
  } as unknown as SqlLike;
  return { sql: counted, rowsRead: () => cursors.reduce((n, c) => n + c.rowsRead, 0) };
}
