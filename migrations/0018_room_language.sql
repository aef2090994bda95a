-- A live room's code language (issue 31): chosen when the room is made,
-- the language its shared code starts and is graded in wherever the
-- problem has a starter in it (a problem without a Python starter stays
-- Go in a Python room). Every room made before this migration is Go's.
ALTER TABLE rooms ADD COLUMN language TEXT NOT NULL DEFAULT 'go' CHECK (language IN ('go', 'python'));
