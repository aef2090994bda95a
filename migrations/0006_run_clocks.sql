-- One overall clock per attempt (issue 10): a rapid-fire run of a whole set
-- as one timed sequence. The limit is the sum of the questions' limits when
-- the run started; the server's clock alone says how much of it is used.
-- Starting the run again replaces the row. Times are Unix milliseconds
-- (UTC), durations milliseconds; the SQL is in internal/storage/run_clocks.go.
CREATE TABLE run_clocks (
    attempt_id INTEGER PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
    limit_ms   INTEGER NOT NULL CHECK (limit_ms > 0),
    started_at INTEGER NOT NULL
) STRICT;
