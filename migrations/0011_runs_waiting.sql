-- The oldest queued run (docs/API.md §6) is asked for whenever the alarm is armed and a turn
-- closes. Through `runs_seq` that walked every run the session ever had (a takeover of a long
-- session spent a third of its time there); this index holds the queued runs alone, so the
-- answer is one row read. A run is queued rarely and briefly, so it adds almost no rows written.
CREATE INDEX runs_waiting ON runs (seq) WHERE state = 'waiting' AND turn_id IS NULL;
-- Whether a trigger has a run still going is asked at each of its firings: through `runs_trigger`
-- that walked every run the trigger ever started (an every-minute trigger has ten thousand a week).
CREATE INDEX runs_unfinished ON runs (trigger_name) WHERE state IN ('running', 'waiting') AND trigger_name IS NOT NULL;
