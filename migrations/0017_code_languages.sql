-- A code problem answered in more than one language (issue 31): the
-- workspace keeps a draft per language, and a run records the language
-- it graded, so a replay grades it as it was and a history can say which.
-- Every row before this migration is Go's. language is 'go' or 'python'.

-- The draft's key grows the language: SQLite cannot change a table's
-- primary key in place, so the table is rebuilt with its rows.
CREATE TABLE code_drafts_by_language (
    attempt_id INTEGER NOT NULL REFERENCES attempts(id) ON DELETE CASCADE,
    language   TEXT    NOT NULL CHECK (language IN ('go', 'python')),
    code       TEXT    NOT NULL,
    saved_at   INTEGER NOT NULL,
    PRIMARY KEY (attempt_id, language)
) STRICT;

INSERT INTO code_drafts_by_language (attempt_id, language, code, saved_at)
SELECT attempt_id, 'go', code, saved_at FROM code_drafts;
DROP TABLE code_drafts;
ALTER TABLE code_drafts_by_language RENAME TO code_drafts;

ALTER TABLE grade_runs ADD COLUMN language TEXT NOT NULL DEFAULT 'go' CHECK (language IN ('go', 'python'));
