package faultsim

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// picksOf is the picks a run with seed would make where each pick is
// among the given numbers of actors, as the scheduler draws them.
func picksOf(seed int64, among []int) []choice {
	src := scheduleSource(seed)
	var out []choice
	for _, n := range among {
		out = append(out, choice{among: n, picked: src.IntN(n)})
	}
	return out
}

func madeRun(seed int64, picks []choice) *Run {
	return &Run{Seed: seed, sched: &Scheduler{choices: picks}, Calls: []*Invocation{{Worker: newWorker("w", OpenGate{}, NewTrace(time.Time{}), CrashPoint{})}}}
}

// TestTwinsFindExactlyTheSameSchedule checks the tree against brute
// force: a seed finds a run made iff its source picks what that run
// picked, pick for pick.
func TestTwinsFindExactlyTheSameSchedule(t *testing.T) {
	among := []int{2, 3, 2, 2}
	tw := &twins{}
	made := map[string]*Run{}
	key := func(p []choice) string { return fmt.Sprint(p) }
	for seed := int64(1); seed <= 12; seed++ {
		p := picksOf(seed, among)
		if made[key(p)] == nil {
			r := madeRun(seed, p)
			tw.add(r)
			made[key(p)] = r
		}
	}
	found := 0
	for seed := int64(100); seed < 400; seed++ {
		want := made[key(picksOf(seed, among))]
		if got := tw.of(seed); got != want {
			t.Fatalf("seed %d: twin %v, want %v", seed, got, want)
		}
		if want != nil {
			found++
		}
	}
	if found == 0 || found == 300 {
		t.Fatalf("%d of 300 seeds found a twin: the test proves nothing", found)
	}
}

func TestTwinsRefuseWhatTheScheduleDoesNotDecide(t *testing.T) {
	t.Run("a run that drew from its seed", func(t *testing.T) {
		tw := &twins{}
		r := madeRun(1, picksOf(1, []int{2}))
		r.Calls[0].Worker.seedRead.Store(true)
		tw.add(r)
		if tw.root != nil {
			t.Fatal("remembered a run that read its seed")
		}
	})
	t.Run("a run that read Worker.Seed", func(t *testing.T) {
		tw := &twins{}
		r := madeRun(1, picksOf(1, []int{2}))
		_ = r.Calls[0].Worker.Seed()
		tw.add(r)
		if tw.root != nil {
			t.Fatal("remembered a run that read Worker.Seed")
		}
	})
	t.Run("no choices: every seed is the first run's", func(t *testing.T) {
		tw := &twins{}
		r := madeRun(1, nil)
		tw.add(r)
		for seed := int64(2); seed < 20; seed++ {
			if tw.of(seed) != r {
				t.Fatalf("seed %d: no twin", seed)
			}
		}
	})
	contradictions := []struct {
		name string
		a, b []choice
	}{
		{"the same picks, then among different numbers", []choice{{among: 2, picked: 0}, {among: 2, picked: 1}}, []choice{{among: 2, picked: 0}, {among: 3, picked: 1}}},
		{"one run ends where the other picks again", []choice{{among: 2, picked: 0}}, []choice{{among: 2, picked: 0}, {among: 2, picked: 1}}},
		{"one run picks again where the other ended", []choice{{among: 2, picked: 0}, {among: 2, picked: 1}}, []choice{{among: 2, picked: 0}}},
	}
	for _, c := range contradictions {
		t.Run(c.name, func(t *testing.T) {
			tw := &twins{}
			tw.add(madeRun(1, c.a))
			tw.add(madeRun(2, c.b))
			if !tw.off {
				t.Fatal("twins stayed on")
			}
			for seed := int64(1); seed < 50; seed++ {
				if tw.of(seed) != nil {
					t.Fatalf("seed %d found a twin after a contradiction", seed)
				}
			}
		})
	}
	t.Run("nil twins", func(t *testing.T) {
		var tw *twins
		tw.add(madeRun(1, nil))
		if tw.of(1) != nil {
			t.Fatal("a twin from nil")
		}
	})
	if !slices.EqualFunc(picksOf(3, []int{2, 2}), picksOf(3, []int{2, 2}), func(a, b choice) bool { return a.among == b.among && a.picked == b.picked }) {
		t.Fatal("picks are not reproducible")
	}
}
