-- Postgres's 0006, as ../0006_run_clocks.sql.

CREATE TABLE run_clocks (
    attempt_id BIGINT PRIMARY KEY REFERENCES attempts(id) ON DELETE CASCADE,
    limit_ms   BIGINT NOT NULL CHECK (limit_ms > 0),
    started_at BIGINT NOT NULL
);
