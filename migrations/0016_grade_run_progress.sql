-- A running grade run's progress, one row a finished scenario, so that an
-- instance other than the one grading it can stream it: the grading
-- instance appends each row (seq 1, 2, ... as its own stream numbers the
-- events) and announces it on the broker; a follower elsewhere reads the
-- rows after the last it sent. data is the progress event's JSON. The rows
-- serve only while the run is going: its owner deletes them once its end
-- is recorded (a dead instance's stay until the run is deleted).
CREATE TABLE grade_run_progress (
    run_id INTEGER NOT NULL REFERENCES grade_runs(id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    data   TEXT    NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- The client address a room's run is graded for (clientaddr.Key), while it
-- is leased (0013): an address's runs going at once are counted across
-- every instance, a room's runs with its solo grade runs, under the
-- address's lock in grade_address_locks. NULL with no run leased.
ALTER TABLE rooms ADD COLUMN run_client_key TEXT;
CREATE INDEX rooms_run_client_key ON rooms (run_client_key) WHERE run_client_key IS NOT NULL;
