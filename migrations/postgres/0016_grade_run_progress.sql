-- Postgres's 0016, as ../0016_grade_run_progress.sql (which says what a
-- run's progress rows are for).
CREATE TABLE grade_run_progress (
    run_id BIGINT NOT NULL REFERENCES grade_runs(id) ON DELETE CASCADE,
    seq    BIGINT NOT NULL,
    data   TEXT   NOT NULL,
    PRIMARY KEY (run_id, seq)
);

ALTER TABLE rooms ADD COLUMN run_client_key TEXT;
CREATE INDEX rooms_run_client_key ON rooms (run_client_key) WHERE run_client_key IS NOT NULL;
