-- The candidate's stream numbers its events by public_seq, a count of the
-- events visible to everyone (issue 12). Numbered by seq, its ids had gaps
-- where the interviewer's own events are, so a candidate could count the
-- interviewer's notes, scores and signals as they were written.
-- last_public_seq is bumped in the same conditional UPDATE as last_seq
-- (internal/storage/rooms.go), so it is as safe with several writers.
ALTER TABLE rooms ADD COLUMN last_public_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE room_events ADD COLUMN public_seq INTEGER;

UPDATE room_events SET public_seq = (
    SELECT count(*) FROM room_events AS e
    WHERE e.room_id = room_events.room_id AND e.visibility = 'everyone' AND e.seq <= room_events.seq)
WHERE visibility = 'everyone';
UPDATE rooms SET last_public_seq = (
    SELECT count(*) FROM room_events AS e WHERE e.room_id = rooms.id AND e.visibility = 'everyone');

CREATE UNIQUE INDEX room_events_public_seq ON room_events (room_id, public_seq) WHERE public_seq IS NOT NULL;
