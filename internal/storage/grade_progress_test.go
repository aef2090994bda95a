package storage

import (
	"context"
	"testing"
)

// TestGradeProgress: a run's progress rows are read back in order after a
// given one, are the run's alone, and are gone once deleted.
func TestGradeProgress(t *testing.T) {
	forEachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		runs := [2]int64{}
		for i := range runs {
			a, err := s.StartAttempt(ctx, "u"+string(rune('1'+i)), KindProblem, "async-refund")
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.StartGradeRun(ctx, a.ID, "async-refund", 1, "package refund")
			if err != nil {
				t.Fatal(err)
			}
			runs[i] = r.ID
		}
		for seq := int64(1); seq <= 3; seq++ {
			if err := s.AppendGradeProgress(ctx, runs[0], seq, []byte(`{"finished":`+string(rune('0'+seq))+`}`)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.AppendGradeProgress(ctx, runs[1], 1, []byte(`{"other":1}`)); err != nil {
			t.Fatal(err)
		}
		got, err := s.GradeProgressAfter(ctx, runs[0], 1, 10)
		if err != nil || len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 3 || string(got[1].Data) != `{"finished":3}` {
			t.Fatalf("progress after 1 = %+v, %v; want 2 and 3", got, err)
		}
		if got, err := s.GradeProgressAfter(ctx, runs[0], 0, 1); err != nil || len(got) != 1 || got[0].Seq != 1 {
			t.Errorf("the first of the progress = %+v, %v", got, err)
		}
		if err := s.DeleteGradeProgress(ctx, runs[0]); err != nil {
			t.Fatal(err)
		}
		if got, err := s.GradeProgressAfter(ctx, runs[0], 0, 10); err != nil || len(got) != 0 {
			t.Errorf("progress after the delete = %+v, %v; want none", got, err)
		}
		if got, err := s.GradeProgressAfter(ctx, runs[1], 0, 10); err != nil || len(got) != 1 {
			t.Errorf("the other run's progress = %+v, %v; want its one row", got, err)
		}
	})
}
