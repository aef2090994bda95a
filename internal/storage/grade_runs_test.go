package storage

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCodeDrafts(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		s.now = func() time.Time { return clock }
		a, err := s.StartAttempt(ctx, "u1", KindProblem, "async-refund")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CodeDraftOf(ctx, a.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("draft before any save: err = %v; want ErrNotFound", err)
		}
		tests := []struct {
			name string
			code string
		}{
			{"first save", "package refund\n"},
			{"overwrite", "package refund\n\nfunc RefundMoney() {}\n"},
			{"empty code is a valid draft", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				clock = clock.Add(2 * time.Second)
				if _, err := s.SaveCodeDraft(ctx, a.ID, tt.code); err != nil {
					t.Fatal(err)
				}
				d, err := s.CodeDraftOf(ctx, a.ID)
				if err != nil {
					t.Fatal(err)
				}
				if d.Code != tt.code || !d.SavedAt.Equal(clock) {
					t.Errorf("draft = %q at %v; want %q at %v", d.Code, d.SavedAt, tt.code, clock)
				}
				got, _ := s.Attempt(ctx, "u1", KindProblem, "async-refund")
				if !got.UpdatedAt.Equal(clock) {
					t.Errorf("attempt updated at %v; want %v", got.UpdatedAt, clock)
				}
			})
		}
		t.Run("other users are apart", func(t *testing.T) {
			b, err := s.StartAttempt(ctx, "u2", KindProblem, "async-refund")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.CodeDraftOf(ctx, b.ID); !errors.Is(err, ErrNotFound) {
				t.Errorf("u2 sees a draft: %v", err)
			}
		})
		t.Run("unknown attempt", func(t *testing.T) {
			if _, err := s.SaveCodeDraft(ctx, 9999, "x"); !errors.Is(err, ErrNotFound) {
				t.Errorf("save for a missing attempt: err = %v; want ErrNotFound", err)
			}
		})
	})
}

func TestGradeRuns(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		clock := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		s.now = func() time.Time { return clock }
		a, err := s.StartAttempt(ctx, "u1", KindProblem, "async-refund")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.LatestGradeRun(ctx, a.ID); !errors.Is(err, ErrNotFound) {
			t.Fatalf("latest run before any: err = %v; want ErrNotFound", err)
		}

		done, err := s.StartGradeRun(ctx, a.ID, "async-refund", 7, "SOURCE-1")
		if err != nil {
			t.Fatal(err)
		}
		if done.Status != GradeRunning || done.ID == 0 {
			t.Fatalf("started run = %+v", done)
		}
		running, err := s.GradeRun(ctx, done.ID)
		if err != nil {
			t.Fatal(err)
		}
		if running.Status != GradeRunning || !running.FinishedAt.IsZero() || running.ReportJSON != nil || running.Source != "SOURCE-1" {
			t.Errorf("running run read back as %+v", running)
		}
		clock = clock.Add(3 * time.Second)
		summary := GradeSummary{Verdict: "fail", ScenariosPassed: 5, ScenariosTotal: 23, InvariantsHeld: 200,
			InvariantsTotal: 230, DefectsFixed: 2, DefectsTotal: 6}
		if err := s.FinishGradeRun(ctx, done.ID, GradeRunEnd{Status: GradeDone, Message: "5 of 23 passed",
			Summary: summary, ReportJSON: []byte(`{"status":"fail"}`)}); err != nil {
			t.Fatal(err)
		}

		clock = clock.Add(time.Second)
		busy, err := s.StartGradeRun(ctx, a.ID, "async-refund", 7, "SOURCE-2")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.FinishGradeRun(ctx, busy.ID, GradeRunEnd{Status: GradeBusy, Message: "busy", RetryAfter: 4 * time.Second}); err != nil {
			t.Fatal(err)
		}
		broken, err := s.StartGradeRun(ctx, a.ID, "async-refund", 8, "SOURCE-3")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.FinishGradeRun(ctx, broken.ID, GradeRunEnd{Status: GradeSystemError, Message: "the grader broke"}); err != nil {
			t.Fatal(err)
		}

		tests := []struct {
			name    string
			id      int64
			check   func(GradeRun) bool
			explain string
		}{
			{"done keeps its report and figures", done.ID, func(r GradeRun) bool {
				return r.Status == GradeDone && r.Summary == summary && string(r.ReportJSON) == `{"status":"fail"}` &&
					r.FinishedAt.Equal(r.StartedAt.Add(3*time.Second)) && r.Message == "5 of 23 passed" && r.Seed == 7
			}, "done, the summary, the report, finished 3 s after the start"},
			{"busy keeps when to retry", busy.ID, func(r GradeRun) bool {
				return r.Status == GradeBusy && r.RetryAfter == 4*time.Second && r.ReportJSON == nil && r.Summary == GradeSummary{}
			}, "busy, retry after 4 s, no report or figures"},
			{"system error keeps its message", broken.ID, func(r GradeRun) bool {
				return r.Status == GradeSystemError && r.Message == "the grader broke" && r.Source == "SOURCE-3"
			}, "system-error with its message"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r, err := s.GradeRun(ctx, tt.id)
				if err != nil {
					t.Fatal(err)
				}
				if !tt.check(r) {
					t.Errorf("run = %+v; want %s", r, tt.explain)
				}
			})
		}

		t.Run("a run finishes once", func(t *testing.T) {
			err := s.FinishGradeRun(ctx, done.ID, GradeRunEnd{Status: GradeSystemError, Message: "late"})
			if !errors.Is(err, ErrRunFinished) {
				t.Errorf("second finish: err = %v; want ErrRunFinished", err)
			}
			if r, _ := s.GradeRun(ctx, done.ID); r.Status != GradeDone {
				t.Errorf("second finish changed the run to %s", r.Status)
			}
		})
		t.Run("finishing needs a final status", func(t *testing.T) {
			r, err := s.StartGradeRun(ctx, a.ID, "async-refund", 1, "x")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.FinishGradeRun(ctx, r.ID, GradeRunEnd{Status: GradeRunning}); err == nil {
				t.Error("finishing as running was accepted")
			}
			if err := s.FinishGradeRun(ctx, 9999, GradeRunEnd{Status: GradeBusy}); !errors.Is(err, ErrNotFound) {
				t.Errorf("finishing an unknown run: err = %v; want ErrNotFound", err)
			}
		})
		t.Run("latest and history", func(t *testing.T) {
			latest, err := s.LatestGradeRun(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			runs, err := s.GradeRuns(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 4 || runs[0].ID != done.ID || runs[3].ID != latest.ID {
				t.Fatalf("history has %d runs, latest %d", len(runs), latest.ID)
			}
			if runs[0].Summary != summary || runs[0].ReportJSON != nil {
				t.Errorf("history row = %+v; want the summary and no report", runs[0])
			}
			other, err := s.StartAttempt(ctx, "u2", KindProblem, "async-refund")
			if err != nil {
				t.Fatal(err)
			}
			if runs, err := s.GradeRuns(ctx, other.ID); err != nil || len(runs) != 0 {
				t.Errorf("u2's history = %d runs, %v; want none", len(runs), err)
			}
		})
		t.Run("unknown run", func(t *testing.T) {
			if _, err := s.GradeRun(ctx, 9999); !errors.Is(err, ErrNotFound) {
				t.Errorf("err = %v; want ErrNotFound", err)
			}
		})
	})
}
