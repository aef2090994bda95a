-- Postgres's 0010, as ../0010_grade_run_leases.sql (which says what the
-- owner, the lease and the address locks are for).

ALTER TABLE grade_runs ADD COLUMN owner TEXT;
ALTER TABLE grade_runs ADD COLUMN lease_until BIGINT;
ALTER TABLE grade_runs ADD COLUMN user_id TEXT;
ALTER TABLE grade_runs ADD COLUMN client_key TEXT;

CREATE UNIQUE INDEX grade_runs_running_user ON grade_runs (user_id) WHERE status = 'running';
CREATE INDEX grade_runs_running_owner ON grade_runs (owner) WHERE status = 'running';
CREATE INDEX grade_runs_running_address ON grade_runs (client_key) WHERE status = 'running';
CREATE INDEX grade_runs_running_lease ON grade_runs (lease_until) WHERE status = 'running';

CREATE TABLE grade_address_locks (
    client_key TEXT   PRIMARY KEY,
    used_at    BIGINT NOT NULL
);
