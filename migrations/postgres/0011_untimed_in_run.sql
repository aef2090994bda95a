-- An untimed ("no limit") answer begun inside a whole-set run: the session
-- is stored timed, to the run's end, so the run's clock ends it and late
-- text is judged as for any box, but the candidate chose no limit of the
-- question's own, and the answer it closes with is stored as untimed.
-- false (0) for every other session, and every session before this column.
ALTER TABLE timed_sessions ADD COLUMN no_own_limit BOOLEAN NOT NULL DEFAULT false;
