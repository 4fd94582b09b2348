-- Work records (docs/API.md §6): a cache of the log's `recordRevision` and `recordEntry` deltas,
-- written in the transaction that commits each event and rebuildable from the log.
CREATE TABLE record_revisions (
  topic TEXT NOT NULL,
  revision INTEGER NOT NULL,
  content TEXT NOT NULL,
  covers_entry INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (topic, revision)
);
CREATE TABLE record_entries (
  topic TEXT NOT NULL,
  entry INTEGER NOT NULL,
  text TEXT NOT NULL,
  refs TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (topic, entry)
);
