package refund

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// worldsKit is the kit keeping every world it builds, for a test to read
// the store's and the provider's logs once the grade is over.
type worldsKit struct {
	Kit
	mu     *sync.Mutex
	worlds *[]*runWorld
}

func (k worldsKit) NewWorld(sc faultsim.Scenario, r *faultsim.Run) (faultsim.World, error) {
	w, err := k.Kit.NewWorld(sc, r)
	if rw, ok := w.(*runWorld); ok {
		k.mu.Lock()
		*k.worlds = append(*k.worlds, rw)
		k.mu.Unlock()
	}
	return w, err
}

// TestTriggeredInvocation: a call with a trigger starts at the instant of
// its event, inside the step that made it, and a call whose event never
// comes is never made (the phase ends without it, nothing left blocked).
func TestTriggeredInvocation(t *testing.T) {
	src, err := os.ReadFile("../../../content/problems/async-refund/reference/refund.go")
	if err != nil {
		t.Fatal(err)
	}
	var base Scenario
	for _, sc := range Builtin() {
		if sc.Name == "redelivered-at-needs-check" {
			base = sc
		}
	}
	if base.Name == "" || len(base.Phases) == 0 || len(base.Phases[0].Invocations) < 2 {
		t.Fatal("no scenario redelivered-at-needs-check with two calls in its first phase")
	}
	tests := []struct {
		name    string
		trigger Trigger
		starts  bool
	}{
		{"on the needs_check write", Trigger{Status: refundkit.StatusNeedsCheck}, true},
		{"on worker-1's answer", Trigger{Answered: "worker-1"}, true},
		{"on a status never written", Trigger{Status: refundkit.StatusDone}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := base
			sc.Phases = append([]Phase(nil), base.Phases...)
			sc.Phases[0].Invocations = append([]Invocation(nil), base.Phases[0].Invocations...)
			sc.Phases[0].Invocations[1].When = &tc.trigger
			sc.Explore = Exploration{}
			k := worldsKit{mu: &sync.Mutex{}, worlds: &[]*runWorld{}}
			prog, diags := interpreted.Interpret(k, "refund.go", string(src))
			if diags != nil {
				t.Fatal(diags)
			}
			if _, err := faultsim.Grade(context.Background(), k, Scenarios([]Scenario{sc}), prog, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1}); err != nil {
				t.Fatal(err)
			}
			if len(*k.worlds) == 0 {
				t.Fatal("no run")
			}
			// The last world is the run graded (a learning run of
			// Kit.Learn may come first).
			w := (*k.worlds)[len(*k.worlds)-1]
			r := w.run
			if r.Deadlock != "" || r.Leftover != "" || r.Stopped != faultsim.StopNone {
				t.Fatalf("deadlock %q, leftover %q, stopped %q", r.Deadlock, r.Leftover, r.Stopped)
			}
			if !tc.starts {
				if len(r.Calls) != 1 {
					t.Fatalf("%d calls made, want only worker-1's", len(r.Calls))
				}
				return
			}
			if len(r.Calls) != 2 || r.Calls[1].Ended != faultsim.EndReturned {
				t.Fatalf("%d calls made, want worker-2's too, and returned", len(r.Calls))
			}
			// The event's instant: the first needs_check write, or the
			// first answer worker-1 got.
			var want time.Duration
			found := false
			for _, c := range w.env.Store().Changes() {
				if !found && tc.trigger.Status != "" && c.New == tc.trigger.Status {
					want, found = c.At, true
				}
			}
			for _, q := range w.env.Provider().Requests() {
				if !found && tc.trigger.Answered != "" && q.Worker == tc.trigger.Answered {
					want, found = q.AnsweredAt, true
				}
			}
			if !found {
				t.Fatal("the event never happened, yet worker-2 ran")
			}
			if got := r.Calls[1].StartedAt; got != want {
				t.Fatalf("worker-2 started at %s, want the event's instant %s", got, want)
			}
		})
	}
}

// TestCrashStopsDeferredWrites: when a worker's process dies, its deferred
// cleanup must not reach the store, as a killed process's would not.
func TestCrashStopsDeferredWrites(t *testing.T) {
	const src = `package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	ok, err := refundkit.Claim(ctx, id, 0)
	if err != nil || !ok {
		return "", err
	}
	defer refundkit.MarkNeedsCheck(ctx, id, "cleanup")
	refundkit.Logf(ctx, "claimed")
	if _, err := refundkit.GetRecord(ctx, id); err != nil {
		return "", err
	}
	return refundkit.OutcomeUnknown, nil
}
`
	var sc Scenario
	for _, s := range Builtin() {
		if s.Name == "lost-reply" { // one worker, record r1 pending
			sc = s
		}
	}
	sc.Explore = Exploration{CrashPoints: CrashEveryBoundary, CrashWorker: "worker-1"}
	k := worldsKit{mu: &sync.Mutex{}, worlds: &[]*runWorld{}}
	prog, diags := interpreted.Interpret(k, "refund.go", src)
	if diags != nil {
		t.Fatal(diags)
	}
	if _, err := faultsim.Grade(context.Background(), k, Scenarios([]Scenario{sc}), prog, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1}); err != nil {
		t.Fatal(err)
	}
	want := map[faultsim.CrashPoint]string{
		{Call: 1, Before: false}: "processing",  // died right after the claim: the deferred write is lost
		{Call: 2, Before: true}:  "processing",  // died before GetRecord
		{}:                       "needs_check", // no crash: the deferred write happens
	}
	seen := map[faultsim.CrashPoint]bool{}
	for _, w := range *k.worlds {
		r := w.run
		status, ok := want[r.Crash]
		if !ok {
			continue
		}
		seen[r.Crash] = true
		rec, _ := w.env.Store().Lookup("r1")
		if string(rec.Status) != status {
			t.Errorf("%s: r1 is %s, want %s", r.Label(), rec.Status, status)
		}
		if r.Crash.Call != 0 && r.Calls[0].Ended != faultsim.EndCrashed {
			t.Errorf("%s: the call %s", r.Label(), r.Calls[0].Ended)
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("runs for %v of the crash points %v", seen, want)
	}
}
