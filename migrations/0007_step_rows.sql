-- A step writes a third of the rows it did (docs/design.md#3-storage). Durable Object SQLite bills
-- every index entry an INSERT adds as a row written, and a tool step appends three events (the
-- model's call, its dispatch, its result), each of which used to add two or three entries.
--
-- The kind index keeps only the kinds a query asks for: no dispatch, no result (nothing looks them up
-- by kind; the model view's one-time rebuild walks the log by seq). A query by kind says this
-- index's condition beside its kind, which is how SQLite knows it may read it.
DROP INDEX events_kind;
CREATE INDEX events_kind ON events (kind, seq) WHERE author <> 'model' AND kind NOT IN ('toolDispatch', 'functionResponse');
-- The call index keeps what a read looks up by call: whether a call was answered (its result) and its
-- approval request. A call without a result is in the open turn after its last model request
-- (every close answers every open call), where the runtime's suffix holds its call and dispatch.
DROP INDEX events_call;
CREATE INDEX events_call ON events (call_id) WHERE kind IN ('functionResponse', 'permissionRequest');
