-- A room's run in progress is owned by the instance grading it, under a
-- lease its heartbeat renews, as a grade run is (0010). A room has one run
-- going at a time, so the lease is the room's: run_seq is the run (its
-- run.started event), run_owner the instance, run_lease_until (Unix ms)
-- until when that instance vouches for it. A run whose lease passed lost its
-- server: any instance records its end at once rather than the room's grader
-- waiting out the whole grading timeout. All three are NULL with no run going.
ALTER TABLE rooms ADD COLUMN run_seq INTEGER;
ALTER TABLE rooms ADD COLUMN run_owner TEXT;
ALTER TABLE rooms ADD COLUMN run_lease_until INTEGER;

CREATE INDEX rooms_run_owner ON rooms (run_owner) WHERE run_owner IS NOT NULL;
CREATE INDEX rooms_run_lease ON rooms (run_lease_until) WHERE run_lease_until IS NOT NULL;
