-- The code editor and grading from the problem page (issue 4).
-- Times are Unix milliseconds (UTC). Both tables hang off attempts, so a
-- user's code and runs for a problem are found through
-- attempts (user_id, kind = 'problem', slug).

-- The latest code a user wrote for a problem: one row per attempt,
-- overwritten by every autosave and by every Grade (which saves first).
CREATE TABLE code_drafts (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
    code       TEXT    NOT NULL,
    saved_at   INTEGER NOT NULL
) STRICT;

-- One row per press of Grade. The row is written as 'running' before the
-- grading starts and finished exactly once:
--   done          the grader produced a report (verdict says pass, fail or
--                 error: a compile error or a limit hit is the user's
--                 failure, so it is 'done' with verdict 'error');
--   busy          the grading pool was full; message says when to retry;
--   system-error  the grading system broke, timed out or the server
--                 stopped mid-run; message is shown to the user.
-- The summary figures are NULL unless status = 'done'; they exist as
-- columns so the practice history can chart progress without decoding
-- report_json:
--   scenarios_passed / scenarios_total  scenarios that passed, of those run;
--   invariants_held / invariants_total  (scenario, invariant) checks that
--                                       held, of those checked (held or
--                                       violated; not_checked is left out);
--   defects_fixed / defects_total       seed defects of the original code
--                                       fixed (rewrite mistakes not counted).
-- report_json is the grader.Report as JSON (version in its "version" field).
CREATE TABLE grade_runs (
    id               INTEGER PRIMARY KEY,
    attempt_id       INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    problem          TEXT    NOT NULL,     -- the grader's problem (its scenario suite), the slug today
    seed             INTEGER NOT NULL,
    source           TEXT    NOT NULL,     -- exactly the code graded
    status           TEXT    NOT NULL CHECK (status IN ('running', 'done', 'busy', 'system-error')),
    started_at       INTEGER NOT NULL,
    finished_at      INTEGER,              -- NULL while running
    verdict          TEXT CHECK (verdict IN ('pass', 'fail', 'error')), -- the report's status when done
    message          TEXT,                 -- the report's message, or why it is busy / broke
    retry_after_ms   INTEGER,              -- busy only: when a place should free up
    scenarios_passed INTEGER,
    scenarios_total  INTEGER,
    invariants_held  INTEGER,
    invariants_total INTEGER,
    defects_fixed    INTEGER,
    defects_total    INTEGER,
    report_json      TEXT
) STRICT;

CREATE INDEX grade_runs_by_attempt ON grade_runs (attempt_id, id);
