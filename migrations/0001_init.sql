-- The log. Insert only: nothing in this table is ever updated or deleted.
-- `body` is the canonical JSON of the event without its digest, exactly as hashed.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  turn_id TEXT,
  author TEXT NOT NULL,
  visibility TEXT NOT NULL,
  kind TEXT NOT NULL,
  call_id TEXT,
  body TEXT NOT NULL,
  digest TEXT NOT NULL
);
CREATE INDEX events_call ON events (call_id) WHERE call_id IS NOT NULL;
CREATE INDEX events_kind ON events (kind, seq);

-- Content-addressed bytes, chunked to stay under the 2 MB row limit.
CREATE TABLE blobs (
  sha256 TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  media_type TEXT NOT NULL,
  chunks INTEGER NOT NULL
);
CREATE TABLE blob_chunks (
  sha256 TEXT NOT NULL,
  idx INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (sha256, idx)
);

-- Cache of checkpoint events.
CREATE TABLE checkpoints (
  id TEXT PRIMARY KEY,
  through_seq INTEGER NOT NULL,
  source_digest TEXT NOT NULL,
  prev_id TEXT,
  summary TEXT NOT NULL,
  event_seq INTEGER NOT NULL
);

-- The workspace: a cache of the file tools' ok outcomes.
CREATE TABLE files (
  path TEXT PRIMARY KEY,
  content TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  version INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  seq INTEGER NOT NULL
);

-- Materialized session summary (a cache of the log): one JSON value per key.
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- Request idempotency keys -> first answer.
CREATE TABLE idempotency (
  key TEXT PRIMARY KEY,
  answer TEXT NOT NULL
);

-- Single-use WebSocket tickets (sha256 of the ticket).
CREATE TABLE tickets (
  hash TEXT PRIMARY KEY,
  principal TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
