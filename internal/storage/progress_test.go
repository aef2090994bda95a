package storage

import (
	"context"
	"testing"
)

// TestCatalogueProgress: each attempt is listed with its answered scopes,
// the newest finished run's figures (a busy run after it changes nothing)
// and whether any finished run passed; another user's attempts are not.
func TestCatalogueProgress(t *testing.T) {
	ctx := context.Background()
	forEachStore(t, func(t *testing.T, s *Store) {
		start := func(user string, kind Kind, slug string) Attempt {
			a, err := s.StartAttempt(ctx, user, kind, slug)
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		run := func(a Attempt, end GradeRunEnd) {
			r, err := s.StartGradeRun(ctx, a.ID, "refund", 1, "package x")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.FinishGradeRun(ctx, r.ID, end); err != nil {
				t.Fatal(err)
			}
		}
		code := start("u1", KindProblem, "async-refund")
		run(code, GradeRunEnd{Status: GradeDone, Summary: GradeSummary{Verdict: "pass", ScenariosPassed: 21, ScenariosTotal: 21}})
		run(code, GradeRunEnd{Status: GradeDone, Summary: GradeSummary{Verdict: "fail", ScenariosPassed: 5, ScenariosTotal: 21,
			InvariantsHeld: 200, InvariantsTotal: 232, DefectsFixed: 3, DefectsTotal: 7}})
		run(code, GradeRunEnd{Status: GradeBusy, Message: "full"})
		set := start("u1", KindSet, "rapid")
		for _, scope := range []string{ScopeQuestion("a"), ScopeQuestion("a"), ScopeQuestion("b")} {
			if _, err := submitPlain(ctx, s, set.ID, scope, "text"); err != nil {
				t.Fatal(err)
			}
		}
		start("u1", KindProblem, "design")
		start("u2", KindProblem, "other")

		got, err := s.CatalogueProgress(ctx, "u1")
		if err != nil {
			t.Fatal(err)
		}
		want := []Progress{
			{Kind: KindProblem, Slug: "async-refund", Graded: true, Solved: true, Latest: GradeSummary{Verdict: "fail",
				ScenariosPassed: 5, ScenariosTotal: 21, InvariantsHeld: 200, InvariantsTotal: 232, DefectsFixed: 3, DefectsTotal: 7}},
			{Kind: KindSet, Slug: "rapid", Answered: 2},
			{Kind: KindProblem, Slug: "design"},
		}
		if len(got) != len(want) {
			t.Fatalf("CatalogueProgress = %+v; want %+v", got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("attempt %d = %+v; want %+v", i, got[i], want[i])
			}
		}
	})
}
