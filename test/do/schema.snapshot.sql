-- index a2a_push_configs_turn
CREATE INDEX a2a_push_configs_turn ON a2a_push_configs (turn_id);

-- index a2a_push_outbox_due
CREATE INDEX a2a_push_outbox_due ON a2a_push_outbox (next_at);

-- index events_call
CREATE INDEX events_call ON events (call_id) WHERE kind IN ('functionResponse', 'permissionRequest');

-- index events_kind
CREATE INDEX events_kind ON events (kind, seq) WHERE author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse');

-- index runs_seq
CREATE INDEX runs_seq ON runs (seq);

-- index runs_trigger
CREATE INDEX runs_trigger ON runs (trigger_name, seq) WHERE trigger_name IS NOT NULL;

-- index runs_turn
CREATE INDEX runs_turn ON runs (turn_id) WHERE turn_id IS NOT NULL;

-- index runs_unfinished
CREATE INDEX runs_unfinished ON runs (trigger_name) WHERE state IN ('running', 'waiting') AND trigger_name IS NOT NULL;

-- index runs_waiting
CREATE INDEX runs_waiting ON runs (seq) WHERE state = 'waiting' AND turn_id IS NULL;

-- index triggers_next
CREATE INDEX triggers_next ON triggers (next_at) WHERE next_at IS NOT NULL;

-- table _migrations
CREATE TABLE _migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL);

-- table a2a_push_configs
CREATE TABLE a2a_push_configs (
  task_id TEXT NOT NULL,
  config_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (task_id, config_id)
);

-- table a2a_push_outbox
CREATE TABLE a2a_push_outbox (
  task_id TEXT NOT NULL,
  config_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  state TEXT NOT NULL,
  at TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  next_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, config_id, seq)
);

-- table blob_chunks
CREATE TABLE blob_chunks (
  sha256 TEXT NOT NULL,
  idx INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (sha256, idx)
);

-- table blobs
CREATE TABLE blobs (
  sha256 TEXT PRIMARY KEY,
  bytes INTEGER NOT NULL,
  media_type TEXT NOT NULL,
  chunks INTEGER NOT NULL
, verified_at TEXT);

-- table caches
CREATE TABLE caches (
  name TEXT PRIMARY KEY,
  built_through INTEGER NOT NULL
);

-- table checkpoints
CREATE TABLE checkpoints (
  id TEXT PRIMARY KEY,
  through_seq INTEGER NOT NULL,
  source_digest TEXT NOT NULL,
  prev_id TEXT,
  summary TEXT NOT NULL,
  event_seq INTEGER NOT NULL
);

-- table events
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

-- table files
CREATE TABLE files (
  path TEXT PRIMARY KEY,
  content TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  version INTEGER NOT NULL,
  updated_at TEXT NOT NULL,
  seq INTEGER NOT NULL
);

-- table idempotency
CREATE TABLE idempotency (
  key TEXT PRIMARY KEY,
  answer TEXT NOT NULL
);

-- table meta
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- table model_view
CREATE TABLE model_view (
  seq INTEGER PRIMARY KEY,
  body TEXT NOT NULL,
  digest TEXT NOT NULL
);

-- table record_entries
CREATE TABLE record_entries (
  topic TEXT NOT NULL,
  entry INTEGER NOT NULL,
  text TEXT NOT NULL,
  refs TEXT NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (topic, entry)
);

-- table record_revisions
CREATE TABLE record_revisions (
  topic TEXT NOT NULL,
  revision INTEGER NOT NULL,
  content TEXT NOT NULL,
  covers_entry INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (topic, revision)
);

-- table runs
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  turn_id TEXT,
  trigger_name TEXT,
  state TEXT NOT NULL,
  seq INTEGER NOT NULL,
  body TEXT NOT NULL
);

-- table tickets
CREATE TABLE tickets (
  hash TEXT PRIMARY KEY,
  principal TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);

-- table triggers
CREATE TABLE triggers (
  name TEXT PRIMARY KEY,
  next_at INTEGER,
  body TEXT NOT NULL
);
