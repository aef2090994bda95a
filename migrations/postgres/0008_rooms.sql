-- Postgres's 0008, as ../0008_rooms.sql (which says why last_seq's
-- conditional UPDATE orders appends per room under several writers; on
-- Postgres that UPDATE's row lock is what does it).

CREATE TABLE rooms (
    id               TEXT   PRIMARY KEY,
    source_kind      TEXT   NOT NULL CHECK (source_kind IN ('screen', 'problem')),
    source_slug      TEXT   NOT NULL,
    interviewer_hash BYTEA  NOT NULL,
    candidate_hash   BYTEA  NOT NULL,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    ended_at         BIGINT,
    last_seq         BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX rooms_expires_at ON rooms (expires_at);

CREATE TABLE room_events (
    room_id     TEXT   NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL CHECK (seq > 0),
    at          BIGINT NOT NULL,
    actor       TEXT   NOT NULL CHECK (actor IN ('interviewer', 'candidate', 'system')),
    kind        TEXT   NOT NULL,
    visibility  TEXT   NOT NULL CHECK (visibility IN ('everyone', 'interviewer')),
    doc         TEXT,
    doc_version BIGINT,
    payload     TEXT   NOT NULL,
    PRIMARY KEY (room_id, seq),
    CHECK ((doc IS NULL) = (doc_version IS NULL))
);

CREATE UNIQUE INDEX room_events_doc_version ON room_events (room_id, doc, doc_version) WHERE doc IS NOT NULL;
