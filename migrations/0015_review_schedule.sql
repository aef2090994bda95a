-- The review queue and calibrated self-assessment (issue 29). Times are
-- Unix milliseconds (UTC). The rules that fill these columns live in
-- internal/review (SM-2); the SQL in internal/storage/review.go.

-- One scheduled item per answered question or problem: (attempt, scope)
-- names it, as answers do. The schedule is the state after the latest
-- rated answer; before_* keep the state before it, so that ticking that
-- answer's key points again re-rates it instead of rating it twice.
CREATE TABLE review_items (
    attempt_id         INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    scope              TEXT    NOT NULL,                                 -- "problem" or "question:<id>"
    reps               INTEGER NOT NULL CHECK (reps >= 0),               -- passing reviews in a row
    ease_milli         INTEGER NOT NULL CHECK (ease_milli >= 1300),      -- SM-2's easiness factor, times 1000
    interval_days      INTEGER NOT NULL CHECK (interval_days >= 0),
    lapses             INTEGER NOT NULL CHECK (lapses >= 0),
    due_at             INTEGER NOT NULL,
    reviewed_at        INTEGER,                                          -- NULL until first rated
    rated_answer_id    INTEGER,                                          -- the answer the state was rated from
    before_reps        INTEGER NOT NULL DEFAULT 0,
    before_ease_milli  INTEGER NOT NULL DEFAULT 2500,
    before_interval    INTEGER NOT NULL DEFAULT 0,
    before_lapses      INTEGER NOT NULL DEFAULT 0,
    before_due_at      INTEGER NOT NULL DEFAULT 0,
    before_reviewed_at INTEGER,
    PRIMARY KEY (attempt_id, scope)
) STRICT;

CREATE INDEX review_items_by_due ON review_items (due_at);

-- What was answered before the queue existed joins it as a new item, due a
-- day after its latest answer (SM-2's first interval), as a fresh answer
-- would be.
INSERT INTO review_items (attempt_id, scope, reps, ease_milli, interval_days, lapses, due_at)
SELECT attempt_id, scope, 0, 2500, 0, 0, max(created_at) + 86400000
FROM answers GROUP BY attempt_id, scope;

-- How many key points the candidate said they covered before the rubric
-- was shown, with the answer it came with. Compared with their ticks
-- (self_assessments) on My practice.
CREATE TABLE answer_predictions (
    answer_id    INTEGER PRIMARY KEY REFERENCES answers(id) ON DELETE CASCADE,
    predicted    INTEGER NOT NULL,
    of_total     INTEGER NOT NULL CHECK (of_total >= 1),
    predicted_at INTEGER NOT NULL,
    CHECK (predicted >= 0 AND predicted <= of_total)
) STRICT;
