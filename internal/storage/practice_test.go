package storage

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestCheckDisplayName(t *testing.T) {
	tests := []struct {
		in, want, problem string
	}{
		{"  Ada  ", "Ada", ""},
		{"", "", ""},
		{strings.Repeat("é", 60), strings.Repeat("é", 60), ""},
		{strings.Repeat("é", 61), "", "61 characters long"},
		{"a\nb", "", "control character"},
		{"\xff", "", "not valid UTF-8"},
		{"\u200b\u2060\ufeff", "", "no visible character"},
		{"\u3000\u00a0", "", ""}, // Unicode spaces only: trimmed to nothing, which clears
		{"\u0301\u0301", "", "no visible character"},
		{"Ada\u202e", "", "reorders the text"},
		{"\u2067Ada\u2069", "", "reorders the text"},
		{"李\u200d", "李\u200d", ""},
		{"👩‍💻", "👩‍💻", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, problem := CheckDisplayName(tt.in)
			if got != tt.want || !strings.Contains(problem, tt.problem) || (tt.problem == "") != (problem == "") {
				t.Errorf("CheckDisplayName(%q) = %q, %q; want %q, %q", tt.in, got, problem, tt.want, tt.problem)
			}
		})
	}
}

func TestPracticeQueries(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		clock := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
		s.now = func() time.Time { clock = clock.Add(time.Second); return clock }
		u, err := s.SetDisplayName(ctx, "u1", "Ada")
		if err != nil || u.DisplayName != "Ada" {
			t.Fatalf("SetDisplayName = %+v, %v", u, err)
		}
		if u, err = s.SetDisplayName(ctx, "u1", ""); err != nil || u.DisplayName != "" {
			t.Fatalf("clearing the name = %+v, %v", u, err)
		}
		if _, err := s.SetDisplayName(ctx, "u1", "a\tb"); err == nil {
			t.Error("a name with a tab was stored")
		}

		p, _ := s.StartAttempt(ctx, "u1", KindProblem, "p")
		set, _ := s.StartAttempt(ctx, "u1", KindSet, "s")
		for _, body := range []string{"one", "two"} {
			if _, err := submitPlain(ctx, s, p.ID, ScopeProblem, body); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.StartAttempt(ctx, "u2", KindProblem, "p"); err != nil {
			t.Fatal(err)
		}

		attempts, err := s.UserAttempts(ctx, "u1")
		if err != nil || len(attempts) != 2 {
			t.Fatalf("UserAttempts = %v, %v; want 2 attempts", attempts, err)
		}
		if attempts[0].ID != p.ID || attempts[1].ID != set.ID {
			t.Errorf("attempts not most recently changed first: %+v", attempts)
		}
		history, err := s.TimedAnswerHistory(ctx, p.ID)
		if err != nil || len(history) != 2 || history[0].Body != "one" || history[1].Body != "two" {
			t.Fatalf("TimedAnswerHistory = %+v, %v; want one, two", history, err)
		}
	})
}
