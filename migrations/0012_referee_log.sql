-- The native referee's log (issue 24): a grade whose verdict from the
-- interpreter differed from the verdict of the same code compiled
-- natively and graded with the same scenarios and seed. The report shown
-- was the native one; each row is an interpreter fault for us to find.
-- `server referee-log` lists them. Times are Unix milliseconds (UTC).
--   source_sha256  the SHA-256 of source, in hex: the same code graded
--                  again is found by it
--   interpreted / native  each verdict in words (gradewire.Report.Verdict)
CREATE TABLE referee_disagreements (
    id            INTEGER PRIMARY KEY,
    at            INTEGER NOT NULL,
    problem       TEXT    NOT NULL,
    kit           TEXT    NOT NULL,
    source_sha256 TEXT    NOT NULL,
    source        TEXT    NOT NULL,
    interpreted   TEXT    NOT NULL,
    native        TEXT    NOT NULL
) STRICT;

CREATE INDEX referee_disagreements_by_at ON referee_disagreements (at, id);
