-- The timed answer box (issue 4): timer sessions, timing stored with each
-- answer, and the candidate's self-assessment against the key points.
-- Times are Unix milliseconds (UTC), durations milliseconds. The rules that
-- fill these columns live in internal/timer; the SQL in
-- internal/storage/timed_answers.go.

-- One timed answer in progress or done. A session starts when the first
-- keystroke reaches the server (a page load starts nothing) and is closed by
-- a submit or, once the limit plus a grace of 5 s has passed, by the server
-- the next time it sees the user (how_ended 'expired' on the answer).
-- At most one session per (attempt, scope) is open: see the index below.
CREATE TABLE timed_sessions (
    id             INTEGER PRIMARY KEY,
    attempt_id     INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    scope          TEXT    NOT NULL,            -- "problem" or "question:<id>", as answers.scope
    mode           TEXT    NOT NULL CHECK (mode IN ('timed', 'untimed')),  -- 'untimed' is the "no limit" practice mode
    limit_ms       INTEGER NOT NULL CHECK (limit_ms > 0),                  -- from the content, even when untimed
    started_at     INTEGER NOT NULL,            -- the server's clock at the first keystroke
    draft          TEXT    NOT NULL DEFAULT '', -- the newest on-time text (autosaved)
    draft_seq      INTEGER NOT NULL DEFAULT 0,  -- the browser's sequence number of the newest save (on time or late); older saves are ignored
    draft_saved_at INTEGER,                     -- NULL until the first on-time draft
    late_text      TEXT,                        -- the newest text that arrived after limit + grace; kept, never the timed answer
    late_saved_at  INTEGER,
    closed_at      INTEGER,                     -- NULL while open
    answer_id      INTEGER REFERENCES answers(id) ON DELETE SET NULL  -- the answer that closed it
) STRICT;

CREATE UNIQUE INDEX timed_sessions_one_open ON timed_sessions (attempt_id, scope) WHERE closed_at IS NULL;
CREATE INDEX timed_sessions_by_answer ON timed_sessions (answer_id);

-- Timing of an answer. Every column is NULL (late 0) for an answer sent
-- without the box's script (a plain form post): no clock ran. Otherwise:
--   mode          'timed' or 'untimed' (no limit)
--   limit_ms      the limit the content gave
--   started_at    the first keystroke, by the server's clock
--   time_used_ms  submit time - start; the whole limit when it expired
--   how_ended     'submitted' (before the limit, or untimed) or 'expired'
--                 (the box locked at the limit, or the server closed an
--                 overdue session with its last on-time draft)
--   late          1 when text arrived after limit + grace; that text is in
--                 late_body and body stays the on-time text
--   word_count    words of body (set for every answer the box stores,
--                 plain posts included)
ALTER TABLE answers ADD COLUMN mode TEXT CHECK (mode IN ('timed', 'untimed'));
ALTER TABLE answers ADD COLUMN limit_ms INTEGER;
ALTER TABLE answers ADD COLUMN started_at INTEGER;
ALTER TABLE answers ADD COLUMN time_used_ms INTEGER;
ALTER TABLE answers ADD COLUMN how_ended TEXT CHECK (how_ended IN ('submitted', 'expired'));
ALTER TABLE answers ADD COLUMN late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1));
ALTER TABLE answers ADD COLUMN late_body TEXT;
ALTER TABLE answers ADD COLUMN word_count INTEGER;

-- Which key points an answer covered, by the candidate's own judgement:
-- covered is a JSON array of 0-based indexes into the key points (a
-- question's "Key points", a problem's "What a strong answer covers"), in
-- ascending order, e.g. [0,2]; of_total is how many key points there were.
-- Saving again replaces the row. covered_count = json_array_length(covered).
CREATE TABLE self_assessments (
    answer_id     INTEGER PRIMARY KEY REFERENCES answers(id) ON DELETE CASCADE,
    covered       TEXT    NOT NULL CHECK (json_valid(covered)),
    covered_count INTEGER NOT NULL CHECK (covered_count >= 0 AND covered_count <= of_total),
    of_total      INTEGER NOT NULL CHECK (of_total >= 1),
    assessed_at   INTEGER NOT NULL
) STRICT;
