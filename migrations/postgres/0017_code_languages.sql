-- Postgres's 0017, as ../0017_code_languages.sql (a draft per language,
-- a run's language; every earlier row is Go's).
ALTER TABLE code_drafts ADD COLUMN language TEXT NOT NULL DEFAULT 'go' CHECK (language IN ('go', 'python'));
ALTER TABLE code_drafts ALTER COLUMN language DROP DEFAULT;
ALTER TABLE code_drafts DROP CONSTRAINT code_drafts_pkey;
ALTER TABLE code_drafts ADD PRIMARY KEY (attempt_id, language);

ALTER TABLE grade_runs ADD COLUMN language TEXT NOT NULL DEFAULT 'go' CHECK (language IN ('go', 'python'));
