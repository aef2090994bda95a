-- Bounded storage (issue 8). Times are Unix milliseconds (UTC).

-- A run's source and report move out of grade_runs into a table of their
-- own. In grade_runs they sat between the columns a history line shows, so
-- reading a run's summary walked the overflow pages of a source of up to
-- 256 KiB: My practice read 25 MiB to list 100 runs. One row per run
-- while it is kept whole; a run trimmed as old loses its row.
CREATE TABLE grade_run_files (
    run_id      INTEGER PRIMARY KEY REFERENCES grade_runs(id) ON DELETE CASCADE,
    source      TEXT NOT NULL,   -- exactly the code graded
    -- The grader.Report as gzip-compressed JSON: the JSON is mostly
    -- repeated names and shrinks about eighteen-fold (180 KB to 10 KB for
    -- the reference solution). NULL until the run is done, and when the
    -- report was too large to keep.
    report_gz   BLOB,
    report_json TEXT             -- runs stored before this migration keep their report as it was
) STRICT;

INSERT INTO grade_run_files (run_id, source, report_json) SELECT id, source, report_json FROM grade_runs;
ALTER TABLE grade_runs DROP COLUMN source;
ALTER TABLE grade_runs DROP COLUMN report_json;

-- Why a finished run no longer holds everything it was graded with:
--   old        it is older than the newest runs kept whole per problem: its
--              grade_run_files row was deleted, its summary columns (what
--              My practice shows) are kept;
--   too-large  its compressed report was larger than a run may keep, so
--              only the summary was stored.
-- NULL: the run is whole.
ALTER TABLE grade_runs ADD COLUMN trimmed TEXT CHECK (trimmed IN ('old', 'too-large'));

-- The quota sums what an identity stores across its attempts; timed
-- sessions had only a partial index on open sessions.
CREATE INDEX timed_sessions_by_attempt ON timed_sessions (attempt_id);
