-- Postgres's 0015, as ../0015_review_schedule.sql.
-- One scheduled item per answered question or problem: (attempt, scope)
-- names it, as answers do. The schedule is the state after the latest
-- rated answer; before_* keep the state before it, so that ticking that
-- answer's key points again re-rates it instead of rating it twice.
CREATE TABLE review_items (
    attempt_id         BIGINT NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    scope              TEXT    NOT NULL,                                 -- "problem" or "question:<id>"
    reps               INT     NOT NULL CHECK (reps >= 0),               -- passing reviews in a row
    ease_milli         INT     NOT NULL CHECK (ease_milli >= 1300),      -- SM-2's easiness factor, times 1000
    interval_days      INT     NOT NULL CHECK (interval_days >= 0),
    lapses             INT     NOT NULL CHECK (lapses >= 0),
    due_at             BIGINT NOT NULL,
    reviewed_at        BIGINT,                                          -- NULL until first rated
    rated_answer_id    BIGINT,                                          -- the answer the state was rated from
    before_reps        INT     NOT NULL DEFAULT 0,
    before_ease_milli  INT     NOT NULL DEFAULT 2500,
    before_interval    INT     NOT NULL DEFAULT 0,
    before_lapses      INT     NOT NULL DEFAULT 0,
    before_due_at      BIGINT NOT NULL DEFAULT 0,
    before_reviewed_at BIGINT,
    PRIMARY KEY (attempt_id, scope)
);

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
    answer_id    BIGINT PRIMARY KEY REFERENCES answers(id) ON DELETE CASCADE,
    predicted    INT     NOT NULL,
    of_total     INT     NOT NULL CHECK (of_total >= 1),
    predicted_at BIGINT NOT NULL,
    CHECK (predicted >= 0 AND predicted <= of_total)
);
