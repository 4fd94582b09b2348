-- Triggers and runs (docs/API.md §6): caches of the log, rebuilt by folding it again
-- (meta `work_through` says how far they are folded). `body` is the row as JSON.
CREATE TABLE triggers (
  name TEXT PRIMARY KEY,
  next_at INTEGER,
  body TEXT NOT NULL
);
CREATE INDEX triggers_next ON triggers (next_at) WHERE next_at IS NOT NULL;

CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  turn_id TEXT,
  trigger_name TEXT,
  state TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX runs_turn ON runs (turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX runs_trigger ON runs (trigger_name, seq) WHERE trigger_name IS NOT NULL;
CREATE INDEX runs_seq ON runs (seq);
