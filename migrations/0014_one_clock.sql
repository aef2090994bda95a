-- One clock model for practice (issue 27). Until now a timed answer's
-- session, a set run as one timed sequence (run_clocks) and a screen
-- practised as a whole (screen_runs) each kept a limit and a start of their
-- own. Every practice clock is now one row of practice_clocks, which the
-- three point to; internal/practice reads them all by one rule
-- (practice.ClockAt): a clock counts from started_at, down from limit_ms
-- (up when it is 0), is never paused, and stops at ended_at, or at its
-- limit if that comes first. Times are Unix milliseconds (UTC), durations
-- milliseconds; the SQL is in internal/storage/clocks.go.
--
--   kind 'answer'  a timed answer's session: limit_ms is the question's
--                  limit, which locks the box only in mode 'timed' (an
--                  untimed session keeps it, as its answer does); ended_at
--                  is when its answer ended (start + time used), NULL while
--                  the session is open.
--   kind 'run'     a set run as one timed sequence: limit_ms is the sum of
--                  the questions' limits; ended_at stays NULL, since a run
--                  ends with its last answer, which the answers say.
--   kind 'screen'  a screen practised as a whole: limit_ms is the screen's
--                  length (0: it counts up); ended_at is its finish.
CREATE TABLE practice_clocks (
    id         INTEGER PRIMARY KEY,
    kind       TEXT    NOT NULL CHECK (kind IN ('answer', 'run', 'screen')),
    limit_ms   INTEGER NOT NULL CHECK (limit_ms > 0 OR (kind = 'screen' AND limit_ms = 0)),
    started_at INTEGER NOT NULL,
    ended_at   INTEGER
) STRICT;

-- Every saved row keeps its meaning. An answer's clock takes its session's
-- id; a run's and a screen's take ids above every session's, in the order
-- of their keys, so each old row maps to exactly one clock.
INSERT INTO practice_clocks (id, kind, limit_ms, started_at, ended_at)
SELECT t.id, 'answer', t.limit_ms, t.started_at,
       CASE WHEN t.closed_at IS NULL THEN NULL
            WHEN a.time_used_ms IS NOT NULL THEN t.started_at + a.time_used_ms
            ELSE t.closed_at END
  FROM timed_sessions t LEFT JOIN answers a ON a.id = t.answer_id;

CREATE TABLE clock_id_base (runs INTEGER NOT NULL, screens INTEGER NOT NULL) STRICT;
INSERT INTO clock_id_base (runs, screens)
SELECT coalesce((SELECT max(id) FROM timed_sessions), 0),
       coalesce((SELECT max(id) FROM timed_sessions), 0) + (SELECT count(*) FROM run_clocks);

-- timed_sessions without its own limit and start: rebuilt, as SQLite
-- cannot add a NOT NULL reference to a table.
CREATE TABLE timed_sessions_new (
    id             INTEGER PRIMARY KEY,
    attempt_id     INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    scope          TEXT    NOT NULL,
    mode           TEXT    NOT NULL CHECK (mode IN ('timed', 'untimed')),
    clock_id       INTEGER NOT NULL UNIQUE REFERENCES practice_clocks(id),
    draft          TEXT    NOT NULL DEFAULT '',
    draft_seq      INTEGER NOT NULL DEFAULT 0,
    draft_saved_at INTEGER,
    late_text      TEXT,
    late_saved_at  INTEGER,
    closed_at      INTEGER,
    answer_id      INTEGER REFERENCES answers(id) ON DELETE SET NULL,
    no_own_limit   INTEGER NOT NULL DEFAULT 0 CHECK (no_own_limit IN (0, 1))
) STRICT;
INSERT INTO timed_sessions_new (id, attempt_id, scope, mode, clock_id, draft, draft_seq, draft_saved_at,
                                late_text, late_saved_at, closed_at, answer_id, no_own_limit)
SELECT id, attempt_id, scope, mode, id, draft, draft_seq, draft_saved_at,
       late_text, late_saved_at, closed_at, answer_id, no_own_limit
  FROM timed_sessions;
DROP TABLE timed_sessions;
ALTER TABLE timed_sessions_new RENAME TO timed_sessions;
CREATE UNIQUE INDEX timed_sessions_one_open ON timed_sessions (attempt_id, scope) WHERE closed_at IS NULL;
CREATE INDEX timed_sessions_by_answer ON timed_sessions (answer_id);
CREATE INDEX timed_sessions_by_attempt ON timed_sessions (attempt_id); -- 0005's

-- A set's run: the attempt and its clock. Starting the run again points
-- the row at a new clock.
CREATE TABLE set_runs (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
    clock_id   INTEGER NOT NULL UNIQUE REFERENCES practice_clocks(id)
) STRICT;
INSERT INTO practice_clocks (id, kind, limit_ms, started_at, ended_at)
SELECT (SELECT runs FROM clock_id_base) + row_number() OVER (ORDER BY attempt_id), 'run', limit_ms, started_at, NULL
  FROM run_clocks;
INSERT INTO set_runs (attempt_id, clock_id)
SELECT attempt_id, (SELECT runs FROM clock_id_base) + row_number() OVER (ORDER BY attempt_id)
  FROM run_clocks;
DROP TABLE run_clocks;

-- A screen's run keeps its steps; its clock is a practice clock.
CREATE TABLE screen_runs_new (
    user_id    TEXT    NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    screen     TEXT    NOT NULL,                             -- the screen's slug
    clock_id   INTEGER NOT NULL UNIQUE REFERENCES practice_clocks(id),
    step       INTEGER NOT NULL CHECK (step >= 1),           -- the step the clock is counting
    step_since INTEGER NOT NULL,                             -- when that step became the current one
    step_ms    TEXT    NOT NULL CHECK (json_valid(step_ms)), -- JSON array: ms used on step i+1 before step_since
    PRIMARY KEY (user_id, screen)
) STRICT;
INSERT INTO practice_clocks (id, kind, limit_ms, started_at, ended_at)
SELECT (SELECT screens FROM clock_id_base) + row_number() OVER (ORDER BY user_id, screen), 'screen',
       limit_ms, started_at, finished_at
  FROM screen_runs;
INSERT INTO screen_runs_new (user_id, screen, clock_id, step, step_since, step_ms)
SELECT user_id, screen, (SELECT screens FROM clock_id_base) + row_number() OVER (ORDER BY user_id, screen),
       step, step_since, step_ms
  FROM screen_runs;
DROP TABLE screen_runs;
ALTER TABLE screen_runs_new RENAME TO screen_runs;

DROP TABLE clock_id_base;
