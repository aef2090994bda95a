-- Postgres's 0007, as ../0007_screen_runs.sql; step_ms is checked as JSON
-- by a cast, as self_assessments.covered is (0003).

CREATE TABLE screen_runs (
    user_id     TEXT   NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    screen      TEXT   NOT NULL,
    limit_ms    BIGINT NOT NULL CHECK (limit_ms >= 0),
    started_at  BIGINT NOT NULL,
    step        BIGINT NOT NULL CHECK (step >= 1),
    step_since  BIGINT NOT NULL,
    step_ms     TEXT   NOT NULL CHECK (step_ms::jsonb IS NOT NULL),
    finished_at BIGINT,
    PRIMARY KEY (user_id, screen)
);
