-- What a user wrote. Every submission is kept (a user may answer again);
-- the latest one is shown. Issue 4 adds timing to these rows.

CREATE TABLE answers (
    id         INTEGER PRIMARY KEY,
    attempt_id INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    scope      TEXT    NOT NULL,            -- same scopes as answer_reveals
    body       TEXT    NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX answers_by_attempt ON answers (attempt_id, scope, id);
