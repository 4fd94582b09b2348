// Moved to bench/lib so that the bench imports nothing from test/ (one copy, shared).
export * from "../../bench/lib/bounded-log";
