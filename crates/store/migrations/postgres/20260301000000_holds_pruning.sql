-- Ended holds by end time, for `prune_holds` (deletes those that ended before a cut-off)
-- without scanning the whole table.
CREATE INDEX holds_ended ON holds (ended_at) WHERE state <> 'active';
