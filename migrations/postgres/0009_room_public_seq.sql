-- Postgres's 0009, as ../0009_room_public_seq.sql: the candidate's stream
-- is numbered by public_seq, a count of the events visible to everyone.

ALTER TABLE rooms ADD COLUMN last_public_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE room_events ADD COLUMN public_seq BIGINT;

UPDATE room_events SET public_seq = (
    SELECT count(*) FROM room_events AS e
    WHERE e.room_id = room_events.room_id AND e.visibility = 'everyone' AND e.seq <= room_events.seq)
WHERE visibility = 'everyone';
UPDATE rooms SET last_public_seq = (
    SELECT count(*) FROM room_events AS e WHERE e.room_id = rooms.id AND e.visibility = 'everyone');

CREATE UNIQUE INDEX room_events_public_seq ON room_events (room_id, public_seq) WHERE public_seq IS NOT NULL;
