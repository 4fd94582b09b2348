export { applyMigrations, MIGRATIONS, splitStatements } from "./migrate";
export { query, rows, run, type SqlLike, type SqlValue } from "./sql";
