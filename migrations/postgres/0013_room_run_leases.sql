-- Postgres's 0013, as ../0013_room_run_leases.sql (which says what a room
-- run's lease is for).

ALTER TABLE rooms ADD COLUMN run_seq BIGINT;
ALTER TABLE rooms ADD COLUMN run_owner TEXT;
ALTER TABLE rooms ADD COLUMN run_lease_until BIGINT;

CREATE INDEX rooms_run_owner ON rooms (run_owner) WHERE run_owner IS NOT NULL;
CREATE INDEX rooms_run_lease ON rooms (run_lease_until) WHERE run_lease_until IS NOT NULL;
