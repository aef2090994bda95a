-- Grade runs owned by a server instance (issue 13). Several instances share
-- one database, so a run records which one grades it (owner, an instance id)
-- and until when that instance vouches for it (lease_until, Unix ms, renewed
-- by its heartbeat). A running run whose lease has passed lost its owner: any
-- instance finishes it as a system error the user can retry. A run stored
-- before this migration has no lease, which counts as passed.
--
-- user_id and client_key are the identity and the client address's limit key
-- the run was started for; NULL on runs from before. The partial unique index
-- is "one running run per user", held by the database whichever instance
-- starts the run. grade_address_locks has one row per client address that
-- graded lately: a start locks it, so that counting the address's running
-- runs and adding one is not raced by another instance's start.
ALTER TABLE grade_runs ADD COLUMN owner TEXT;
ALTER TABLE grade_runs ADD COLUMN lease_until INTEGER;
ALTER TABLE grade_runs ADD COLUMN user_id TEXT;
ALTER TABLE grade_runs ADD COLUMN client_key TEXT;

CREATE UNIQUE INDEX grade_runs_running_user ON grade_runs (user_id) WHERE status = 'running';
CREATE INDEX grade_runs_running_owner ON grade_runs (owner) WHERE status = 'running';
CREATE INDEX grade_runs_running_address ON grade_runs (client_key) WHERE status = 'running';
CREATE INDEX grade_runs_running_lease ON grade_runs (lease_until) WHERE status = 'running';

CREATE TABLE grade_address_locks (
    client_key TEXT    PRIMARY KEY,
    used_at    INTEGER NOT NULL -- Unix ms of the last start; idle rows are deleted after a day
) STRICT;
