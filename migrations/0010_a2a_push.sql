-- A2A push notifications (docs/API.md#a2a-server). Not caches of the log: a config holds the
-- receiver's token and credentials, which never enter the log (as OAuth tokens never do).
CREATE TABLE a2a_push_configs (
  task_id TEXT NOT NULL,
  config_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  body TEXT NOT NULL,
  PRIMARY KEY (task_id, config_id)
);
CREATE INDEX a2a_push_configs_turn ON a2a_push_configs (turn_id);

-- The outbox: one row per status change to deliver to one config, written in the commit of the
-- event it reports, deleted once the receiver answered 2xx (or after the last try).
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
CREATE INDEX a2a_push_outbox_due ON a2a_push_outbox (next_at);
