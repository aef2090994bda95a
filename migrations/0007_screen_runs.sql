-- Practising a screen as a whole (issue 10): one run per user and screen,
-- with the screen's overall clock and the time used on each step, all by
-- the server's clock. The run starts when the candidate presses "Practise
-- this screen"; moving to another step (a POST, never a page load) adds
-- the time since step_since to the step it leaves. Starting again replaces
-- the row. Times are Unix milliseconds (UTC), durations milliseconds; the
-- rules are in internal/practice, the SQL in internal/storage/screen_runs.go.
CREATE TABLE screen_runs (
    user_id     TEXT    NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    screen      TEXT    NOT NULL,                          -- the screen's slug
    limit_ms    INTEGER NOT NULL CHECK (limit_ms >= 0),    -- from content; 0: the clock counts up
    started_at  INTEGER NOT NULL,
    step        INTEGER NOT NULL CHECK (step >= 1),        -- the step the clock is counting
    step_since  INTEGER NOT NULL,                          -- when that step became the current one
    step_ms     TEXT    NOT NULL CHECK (json_valid(step_ms)), -- JSON array: ms used on step i+1 before step_since
    finished_at INTEGER,                                   -- NULL while the run goes on
    PRIMARY KEY (user_id, screen)
) STRICT;
