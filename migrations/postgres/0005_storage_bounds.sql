-- Postgres's 0005, as ../0005_storage_bounds.sql: a run's source and
-- report move to a table of their own, and a run records why it was
-- trimmed. Postgres keeps a large value out of line (TOAST) by itself,
-- but the table split is kept so both databases have one schema.

CREATE TABLE grade_run_files (
    run_id      BIGINT PRIMARY KEY REFERENCES grade_runs(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,
    report_gz   BYTEA,
    report_json TEXT
);

INSERT INTO grade_run_files (run_id, source, report_json) SELECT id, source, report_json FROM grade_runs;
ALTER TABLE grade_runs DROP COLUMN source;
ALTER TABLE grade_runs DROP COLUMN report_json;

ALTER TABLE grade_runs ADD COLUMN trimmed TEXT CHECK (trimmed IN ('old', 'too-large'));

CREATE INDEX timed_sessions_by_attempt ON timed_sessions (attempt_id);
