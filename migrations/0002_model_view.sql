-- The model view (docs/design.md §6 "Bounded in bytes"): for each event the model sees differently from
-- how it is logged (an offloaded tool result: its placeholder), that view, keyed by the event's seq.
-- A cache of the log, written in the same transaction as the event and rebuildable from it.
CREATE TABLE model_view (
  seq INTEGER PRIMARY KEY,
  body TEXT NOT NULL,
  digest TEXT NOT NULL
);

-- Which rebuildable caches are complete. A row means every event since it was written maintained
-- the cache in its own append; no row means the cache is rebuilt from the log before it is read.
CREATE TABLE caches (
  name TEXT PRIMARY KEY,
  built_through INTEGER NOT NULL
);
-- An empty log has nothing to rebuild; a log upgraded from 0001 rebuilds its view on first read.
INSERT INTO caches (name, built_through) SELECT 'model_view', 0 WHERE NOT EXISTS (SELECT 1 FROM events);

-- When a blob's stored bytes were read back and matched its size and sha256 (at `put`), so that
-- paging through an archive need not hash the whole blob again. Blobs stored before are checked once.
ALTER TABLE blobs ADD COLUMN verified_at TEXT;
