-- Anonymous identity, attempts and what each user chose to see.
-- Times are Unix milliseconds (UTC).

CREATE TABLE users (
    id           TEXT PRIMARY KEY,          -- 128 random bits, hex; also the cookie value
    created_at   INTEGER NOT NULL,
    display_name TEXT                       -- NULL until a later issue lets users name themselves
) STRICT;

-- One attempt per user and item: a problem (slug) or a question set (slug).
CREATE TABLE attempts (
    id         INTEGER PRIMARY KEY,
    user_id    TEXT    NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL CHECK (kind IN ('problem', 'set')),
    slug       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (user_id, kind, slug)
) STRICT;

-- Hints are revealed one at a time, in order: hint_index counts from 1 within a part.
CREATE TABLE hint_reveals (
    attempt_id  INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    part        INTEGER NOT NULL CHECK (part >= 1),
    hint_index  INTEGER NOT NULL CHECK (hint_index >= 1),
    revealed_at INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, part, hint_index)
) STRICT;

-- Answer material (rubric, model answer, a question's key points) shown to a
-- user, with why: they submitted an answer first, or chose to look.
CREATE TABLE answer_reveals (
    attempt_id  INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    scope       TEXT    NOT NULL,           -- "problem" or "question:<id>"
    reason      TEXT    NOT NULL CHECK (reason IN ('submitted', 'chose-to-reveal')),
    revealed_at INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, scope)
) STRICT;
