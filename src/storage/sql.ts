import type { ZodType } from "zod";

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

/** A small keyed row of the `meta` table (migrations/0001), or null. */
export function readMeta(sql: SqlLike, key: string): string | null {
  return rows<{ value: string }>(sql)`SELECT value FROM meta WHERE key = ${key}`[0]?.value ?? null;
}

/** Writes a `meta` row, as JSON. */
export function writeMeta(sql: SqlLike, key: string, value: unknown) {
  run(sql)`INSERT INTO meta (key, value) VALUES (${key}, ${JSON.stringify(value)})
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** JSON read back from SQLite, checked by `schema`; null when absent, unparsable or of another shape. */
export function parseJson<T>(schema: ZodType<T>, text: string | null): T | null {
  if (text === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
