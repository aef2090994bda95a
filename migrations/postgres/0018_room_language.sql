-- Postgres's 0018, as ../0018_room_language.sql (a room's code language;
-- every earlier room is Go's).
ALTER TABLE rooms ADD COLUMN language TEXT NOT NULL DEFAULT 'go' CHECK (language IN ('go', 'python'));
