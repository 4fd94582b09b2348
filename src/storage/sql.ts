/** A value SQLite can bind. */
export type SqlValue = string | number | null | ArrayBuffer | Uint8Array;

/** The slice of `SqlStorage` we use, so Node tests can pass a fake if they need one. */
export interface SqlLike {
  exec<T extends Record<string, SqlStorageValue>>(query: string, ...bindings: unknown[]): SqlStorageCursor<T>;
}

/**
 * Tagged-template SQL that always binds: `all(sql)\`SELECT * FROM t WHERE a = ${x}\``.
 * Interpolations become `?` parameters; SQL is never built from strings.
 */
export function query<T extends Record<string, SqlStorageValue>>(
  sql: SqlLike,
  strings: TemplateStringsArray,
  values: SqlValue[],
): T[] {
  return sql.exec<T>(strings.join("?"), ...values).toArray();
}

/** Binds and runs a statement, reading every row before returning (no cursor outlives an await). */
export function rows<T extends Record<string, SqlStorageValue>>(sql: SqlLike) {
  return (strings: TemplateStringsArray, ...values: SqlValue[]): T[] => query<T>(sql, strings, values);
}

/** Binds and runs a statement that returns nothing of interest. */
export function run(sql: SqlLike) {
  return (strings: TemplateStringsArray, ...values: SqlValue[]): void => {
    sql.exec(strings.join("?"), ...values).toArray();
  };
}
