-- Live screens (issue 12): a room joins an interviewer and a candidate over
-- one screen or one problem. Everything that happens in a room is a row of
-- room_events, an append-only log; live views, replay and the scorecard are
-- folds of it, so nothing about a room lives only in one server's memory.
-- The SQL is in internal/storage/rooms.go.
--
-- The two links' secrets are kept only as SHA-256 hashes: a leaked database
-- opens no room. id is public (it is in every room URL) and says nothing
-- about either secret. last_seq is the room's event counter: an append
-- bumps it with a conditional UPDATE, which is the row lock that orders
-- appends per room under several writers (commit order is sequence order,
-- so a reader resuming after seq n never misses a later-committed n-1),
-- and refuses appends to an ended or expired room in the same statement.
CREATE TABLE rooms (
    id               TEXT    PRIMARY KEY,
    source_kind      TEXT    NOT NULL CHECK (source_kind IN ('screen', 'problem')),
    source_slug      TEXT    NOT NULL,
    interviewer_hash BLOB    NOT NULL,
    candidate_hash   BLOB    NOT NULL,
    created_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    ended_at         INTEGER,
    last_seq         INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX rooms_expires_at ON rooms (expires_at);

-- One event. seq counts from 1 in each room. actor is who did it;
-- visibility 'everyone' events are the only ones a candidate's view and
-- stream ever read. payload is the kind's JSON (internal/rooms/events.go
-- documents every kind). doc and doc_version are set on shared-editor
-- updates: doc_version is the document's version after the update, unique
-- per document, so two writers from the same base cannot both land.
CREATE TABLE room_events (
    room_id     TEXT    NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL CHECK (seq > 0),
    at          INTEGER NOT NULL,
    actor       TEXT    NOT NULL CHECK (actor IN ('interviewer', 'candidate', 'system')),
    kind        TEXT    NOT NULL,
    visibility  TEXT    NOT NULL CHECK (visibility IN ('everyone', 'interviewer')),
    doc         TEXT,
    doc_version INTEGER,
    payload     TEXT    NOT NULL,
    PRIMARY KEY (room_id, seq),
    CHECK ((doc IS NULL) = (doc_version IS NULL))
) STRICT;

CREATE UNIQUE INDEX room_events_doc_version ON room_events (room_id, doc, doc_version) WHERE doc IS NOT NULL;
