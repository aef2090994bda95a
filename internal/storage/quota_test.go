package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestQuotaRefusesAndKeepsWhatWasSaved(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		// write stores kb KiB for the user's attempt.
		write func(s *Store, a Attempt, kb int) error
		// kept says what the refused write left in place.
		kept func(s *Store, a Attempt) (string, error)
	}{
		{"code draft",
			func(s *Store, a Attempt, kb int) error {
				_, err := s.SaveCodeDraft(ctx, a.ID, strings.Repeat("c", kb<<10))
				return err
			},
			func(s *Store, a Attempt) (string, error) {
				d, err := s.CodeDraftOf(ctx, a.ID)
				return fmt.Sprintf("draft of %d bytes", len(d.Code)), err
			}},
		{"grade run",
			func(s *Store, a Attempt, kb int) error {
				_, err := s.StartGradeRun(ctx, a.ID, "p", 1, strings.Repeat("g", kb<<10))
				return err
			},
			func(s *Store, a Attempt) (string, error) {
				runs, err := s.GradeRuns(ctx, a.ID)
				return fmt.Sprintf("%d runs", len(runs)), err
			}},
		{"answer",
			func(s *Store, a Attempt, kb int) error {
				_, err := s.SubmitTimedAnswer(ctx, a.ID, ScopeProblem, strings.Repeat("a", kb<<10), 0, AnswerTiming{}, at)
				return err
			},
			func(s *Store, a Attempt) (string, error) {
				h, err := s.TimedAnswerHistory(ctx, a.ID)
				return fmt.Sprintf("%d answers", len(h)), err
			}},
		{"timed draft",
			func(s *Store, a Attempt, kb int) error {
				sess, _, err := s.StartTimedSession(ctx, a.ID, ScopeProblem, ModeTimed, time.Minute, false, at)
				if err != nil {
					return err
				}
				_, _, err = s.SaveDraft(ctx, sess.ID, int64(kb), strings.Repeat("d", kb<<10), false, at)
				return err
			},
			func(s *Store, a Attempt) (string, error) {
				open, err := s.OpenTimedSessions(ctx, a.ID)
				return fmt.Sprintf("draft of %d bytes", len(open[ScopeProblem].Draft)), err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, s *Store) {
				s.maxUserBytes = 100 << 10
				if tt.name == "grade run" {
					s.maxUserBytes += MaxReportBytes // a run reserves room for its report
				}
				a, err := s.StartAttempt(ctx, "u1", KindProblem, "p")
				if err != nil {
					t.Fatal(err)
				}
				if err := tt.write(s, a, 60); err != nil {
					t.Fatalf("first write of 60 KiB under a 100 KiB quota: %v", err)
				}
				before, err := tt.kept(s, a)
				if err != nil {
					t.Fatal(err)
				}
				// A second user of the same store is not charged for the first.
				b, _ := s.StartAttempt(ctx, "u2", KindProblem, "p")
				if err := tt.write(s, b, 60); err != nil {
					t.Fatalf("another user's write: %v", err)
				}
				err = tt.write(s, a, 61)
				if tt.name == "code draft" || tt.name == "timed draft" {
					// An overwrite only counts what it adds: 60 -> 61 KiB fits.
					if err != nil {
						t.Fatalf("overwrite growing by 1 KiB: %v", err)
					}
					err = tt.write(s, a, 101)
				}
				var qe *QuotaError
				if !errors.As(err, &qe) || !errors.Is(err, ErrQuota) {
					t.Fatalf("write past the quota: err = %v; want a *QuotaError", err)
				}
				if qe.Limit != s.maxUserBytes || qe.Used < 60<<10 {
					t.Errorf("quota error = %+v; want the limit and what is stored", qe)
				}
				after, err := tt.kept(s, a)
				if err != nil {
					t.Fatal(err)
				}
				if tt.name == "code draft" || tt.name == "timed draft" {
					before = strings.Replace(before, fmt.Sprint(60<<10), fmt.Sprint(61<<10), 1)
				}
				if after != before {
					t.Errorf("after the refused write: %s; want %s as before", after, before)
				}
			})
		})
	}
}

func TestQuotaAllowsShrinkingAtTheLimit(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		s.maxUserBytes = 10 << 10
		a, _ := s.StartAttempt(ctx, "u1", KindProblem, "p")
		if _, err := s.SaveCodeDraft(ctx, a.ID, strings.Repeat("x", 10<<10)); err != nil {
			t.Fatalf("a draft exactly at the limit: %v", err)
		}
		if _, err := s.SaveCodeDraft(ctx, a.ID, "short"); err != nil {
			t.Errorf("shortening a draft at the limit: %v", err)
		}
		if n, err := s.Usage(ctx, "u1"); err != nil || n != 5 {
			t.Errorf("Usage = %d, %v; want 5", n, err)
		}
		if n, err := s.Usage(ctx, "nobody"); err != nil || n != 0 {
			t.Errorf("Usage of a user with nothing = %d, %v; want 0", n, err)
		}
	})
}

func finishDone(t *testing.T, s *Store, id int64, held int, report []byte) {
	t.Helper()
	err := s.FinishGradeRun(context.Background(), id, GradeRunEnd{Status: GradeDone,
		Summary:    GradeSummary{Verdict: "fail", ScenariosPassed: held, ScenariosTotal: 23, InvariantsHeld: held, InvariantsTotal: 260},
		ReportJSON: report})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunsTrimmedToTheNewest(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		// Smaller than the real quotas, so the test is quick; trimRuns gets
		// them as the real ones.
		const fullRunsKept, runsKept = 4, 12
		s.fullRunsKept, s.runsKept = fullRunsKept, runsKept
		a, _ := s.StartAttempt(ctx, "u1", KindProblem, "p")
		other, _ := s.StartAttempt(ctx, "u2", KindProblem, "p")
		otherRun, _ := s.StartGradeRun(ctx, other.ID, "p", 1, "OTHER")
		finishDone(t, s, otherRun.ID, 1, []byte(`{"other":true}`))
		// A run still going when later ones start is never trimmed.
		stuck, _ := s.StartGradeRun(ctx, a.ID, "p", 1, "STUCK")
		total := runsKept + 5
		var ids []int64
		for i := range total - 1 {
			r, err := s.StartGradeRun(ctx, a.ID, "p", 1, fmt.Sprintf("SOURCE-%d", i))
			if err != nil {
				t.Fatal(err)
			}
			finishDone(t, s, r.ID, i%23, []byte(fmt.Sprintf(`{"run":%d}`, i)))
			ids = append(ids, r.ID)
		}
		runs, err := s.GradeRuns(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The oldest finished ones were deleted; the stuck run stays first.
		if len(runs) != runsKept+1 || runs[0].ID != stuck.ID || runs[1].ID != ids[len(ids)-runsKept] {
			t.Fatalf("%d runs listed, first %d, %d; want %d: the stuck run, then the newest %d", len(runs), runs[0].ID, runs[1].ID, runsKept+1, runsKept)
		}
		tests := []struct {
			name  string
			index int // into ids
			whole bool
		}{
			{"newest", len(ids) - 1, true},
			{"last kept whole", len(ids) - fullRunsKept, true},
			{"first trimmed", len(ids) - fullRunsKept - 1, false},
			{"oldest listed", len(ids) - runsKept, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r, err := s.GradeRun(ctx, ids[tt.index])
				if err != nil {
					t.Fatal(err)
				}
				if want := tt.index % 23; r.Summary.InvariantsHeld != want || r.Status != GradeDone {
					t.Errorf("summary = %+v; want %d held, done", r.Summary, want)
				}
				if tt.whole {
					if r.Trimmed != "" || r.Source != fmt.Sprintf("SOURCE-%d", tt.index) || string(r.ReportJSON) != fmt.Sprintf(`{"run":%d}`, tt.index) {
						t.Errorf("run kept whole = trimmed %q, source %q, report %q", r.Trimmed, r.Source, r.ReportJSON)
					}
				} else if r.Trimmed != TrimmedOld || r.Source != "" || r.ReportJSON != nil {
					t.Errorf("old run = trimmed %q, source %q, report %q; want trimmed old with neither", r.Trimmed, r.Source, r.ReportJSON)
				}
			})
		}
		if r, _ := s.GradeRun(ctx, stuck.ID); r.Source != "STUCK" || r.Trimmed != "" {
			t.Errorf("the running run = source %q, trimmed %q; want it whole", r.Source, r.Trimmed)
		}
		if r, _ := s.GradeRun(ctx, otherRun.ID); r.Trimmed != "" || string(r.ReportJSON) != `{"other":true}` {
			t.Errorf("another user's run was trimmed: %q %q", r.Trimmed, r.ReportJSON)
		}
		var files int
		s.db.QueryRowContext(ctx, `SELECT count(*) FROM grade_run_files`).Scan(&files)
		if want := fullRunsKept + 2; files != want { // the newest, the stuck run, the other user's
			t.Errorf("%d runs keep a source and report; want %d", files, want)
		}
	})
}

func TestReportStoredCompressedOrNotAtAll(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, _ := s.StartAttempt(ctx, "u1", KindProblem, "p")
		random := make([]byte, MaxReportBytes+1<<10)
		rand.Read(random)
		tests := []struct {
			name        string
			report      []byte
			wantTrimmed string
			maxStored   int
		}{
			{"repetitive report shrinks", []byte(`{"scenarios":[` + strings.Repeat(`{"name":"lost reply","held":true},`, 5000) + `{}]}`), "", 8 << 10},
			{"incompressible report past the limit", []byte(`{"log":"` + hex.EncodeToString(random) + `"}`), TrimmedTooLarge, 0},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r, err := s.StartGradeRun(ctx, a.ID, "p", 1, "SRC")
				if err != nil {
					t.Fatal(err)
				}
				finishDone(t, s, r.ID, 7, tt.report)
				got, err := s.GradeRun(ctx, r.ID)
				if err != nil {
					t.Fatal(err)
				}
				var stored int
				s.db.QueryRowContext(ctx, `SELECT coalesce(octet_length(report_gz), 0) FROM grade_run_files WHERE run_id = ?`, r.ID).Scan(&stored)
				if got.Trimmed != tt.wantTrimmed || got.Summary.InvariantsHeld != 7 || got.Source != "SRC" {
					t.Errorf("run = trimmed %q, %d held, source %q; want trimmed %q, the summary and source kept", got.Trimmed, got.Summary.InvariantsHeld, got.Source, tt.wantTrimmed)
				}
				if tt.wantTrimmed == "" && (string(got.ReportJSON) != string(tt.report) || stored > tt.maxStored) {
					t.Errorf("report of %d bytes stored as %d (want at most %d), read back equal: %v", len(tt.report), stored, tt.maxStored, string(got.ReportJSON) == string(tt.report))
				}
				if tt.wantTrimmed != "" && (got.ReportJSON != nil || stored != 0) {
					t.Errorf("a report past the limit was kept: %d bytes stored", stored)
				}
			})
		}
	})
}

func TestGradeRunsReadsNoSourceOrReport(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		a, _ := s.StartAttempt(ctx, "u1", KindProblem, "p")
		huge := strings.Repeat("s", 200<<10)
		for range 3 {
			r, err := s.StartGradeRun(ctx, a.ID, "p", 1, huge)
			if err != nil {
				t.Fatal(err)
			}
			finishDone(t, s, r.ID, 3, []byte(`{"trace":"`+strings.Repeat("e", 1<<20)+`"}`))
		}
		runs, err := s.GradeRuns(ctx, a.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Source != "" || r.ReportJSON != nil || r.Summary.InvariantsHeld != 3 {
				t.Errorf("run %d listed with %d bytes of source, %d of report, summary %+v; want the summary only",
					r.ID, len(r.Source), len(r.ReportJSON), r.Summary)
			}
		}
	})
}

// A database from before migration 0005 keeps its runs' sources and
// reports, now read from grade_run_files.
func TestMigrationMovesSourcesAndReports(t *testing.T) {
	ctx := context.Background()
	forEachDialect(t, func(t *testing.T, dialect string) {
		// Build a database at version 4 by hand, as an older binary left it.
		db, path := openOldStore(t, dialect, 4)
		if _, err := db.db.ExecContext(ctx, `INSERT INTO users (id, created_at) VALUES ('u1', 1);
		INSERT INTO attempts (id, user_id, kind, slug, created_at, updated_at) VALUES (1, 'u1', 'problem', 'p', 1, 1);
		INSERT INTO grade_runs (id, attempt_id, problem, seed, source, status, started_at, finished_at, verdict,
		  scenarios_passed, scenarios_total, invariants_held, invariants_total, defects_fixed, defects_total, report_json)
		VALUES (1, 1, 'p', 9, 'OLD SOURCE', 'done', 1, 2, 'pass', 23, 23, 260, 260, 6, 6, '{"old":true}')`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		s2, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("migrating an old database: %v", err)
		}
		defer s2.Close()
		r, err := s2.GradeRun(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Source != "OLD SOURCE" || string(r.ReportJSON) != `{"old":true}` || r.Seed != 9 || r.Summary.InvariantsHeld != 260 {
			t.Errorf("migrated run = source %q, report %q, seed %d, summary %+v", r.Source, r.ReportJSON, r.Seed, r.Summary)
		}
		if n, _ := s2.Usage(ctx, "u1"); n != int64(len("OLD SOURCE")+len(`{"old":true}`)) {
			t.Errorf("Usage after migration = %d", n)
		}
	})
}
