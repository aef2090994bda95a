package refund_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// watchKit is the refund kit keeping every run it builds a world for, so
// a test can read what happened beyond what the report shows.
type watchKit struct {
	refund.Kit
	mu   *sync.Mutex
	runs *[]*faultsim.Run
}

func newWatchKit() watchKit { return watchKit{mu: &sync.Mutex{}, runs: &[]*faultsim.Run{}} }

func (k watchKit) NewWorld(sc faultsim.Scenario, r *faultsim.Run) (faultsim.World, error) {
	k.mu.Lock()
	*k.runs = append(*k.runs, r)
	k.mu.Unlock()
	return k.Kit.NewWorld(sc, r)
}

// builtinScenario is the built-in scenario name, a copy to change.
func builtinScenario(t *testing.T, name string) refund.Scenario {
	t.Helper()
	for _, sc := range refund.Builtin() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return refund.Scenario{}
}

// TestCrashStopsTheWholeWorker: a crash at a call made from a goroutine the
// submission started kills the whole process. The call ends when the
// process dies, though its own goroutine waits forever for the dead one;
// the next phase starts; no other goroutine of the dead process reaches
// the world; the reply to its request in flight is dropped; and what stays
// blocked is not reported as a call that never ends.
func TestCrashStopsTheWholeWorker(t *testing.T) {
	if raceEnabled {
		t.Skip("explores some six hundred crash points: too slow under -race; runs without it")
	}
	src := strings.Replace(sourceHeader, "\"context\"\n", "\"context\"\n\t\"time\"\n", 1) + `func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	ok, err := refundkit.Claim(ctx, id, 1)
	if err != nil || !ok {
		return refundkit.OutcomeInProgress, err
	}
	go func() {
		for {
			refundkit.Logf(ctx, "heartbeat")
			refundkit.GetRecord(ctx, id)
			time.Sleep(time.Second)
		}
	}()
	errc := make(chan error)
	go func() {
		_, err := refundkit.CreateRefund(ctx, refundkit.RefundParams{Charge: "ch_1", Amount: 2500, IdempotencyKey: "k-" + id, Reference: id})
		errc <- err
	}()
	if err := <-errc; err != nil {
		return refundkit.OutcomeUnknown, refundkit.MarkNeedsCheck(ctx, id, "no answer")
	}
	return refundkit.OutcomeDone, refundkit.MarkDone(ctx, id)
}
`
	sc := builtinScenario(t, "crash-and-rerun")
	// The request is slow: its reply comes back after 5 s, by when a
	// heartbeat call has killed the process.
	sc.Faults = []world.Fault{{Request: 1, Kind: world.FaultSlow, Processing: 5 * time.Second}}
	// The heartbeat outlives the call, which goroutines-end fails at the
	// first run, and a scenario judging it makes no run after that one:
	// this test is about the crash runs.
	sc.Invariants = nil
	for _, id := range refund.InvariantIDs {
		if id != refund.InvGoroutinesEnd {
			sc.Invariants = append(sc.Invariants, id)
		}
	}
	k := newWatchKit()
	prog, diags := interpreted.Interpret(k, "refund.go", src)
	if diags != nil {
		t.Fatal(diags)
	}
	rep, err := faultsim.Grade(context.Background(), k, refund.Scenarios([]refund.Scenario{sc}), prog, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range rep.Scenarios[0].Invariants {
		if inv.ID == refund.InvBoundedAttempts && !inv.Held {
			// The dead process's heartbeat is no attempt of the call.
			t.Errorf("bounded-attempts violated: %v", inv.Evidence)
		}
	}
	lateCrashes, droppedToDead := 0, false
	for _, r := range *k.runs {
		if len(r.Calls) == 0 || r.Calls[0].Worker == nil || r.Calls[0].Worker.Died == "" {
			continue
		}
		iv := r.Calls[0]
		diedAt := iv.Worker.DiedAt
		if diedAt >= 2*time.Second {
			lateCrashes++
		}
		if r.Deadlock != "" || r.Stopped != faultsim.StopNone {
			t.Errorf("%s: the dead worker's blocked goroutine was taken for a deadlock (%q) or the run was stopped (%q)", r.Label(), r.Deadlock, r.Stopped)
		}
		// The heartbeat goes on after the call returns: a crash then
		// kills the process but not the call, which had ended.
		returnedFirst := iv.Ended == faultsim.EndReturned && iv.EndedAt <= diedAt
		if !returnedFirst && (iv.Ended != faultsim.EndCrashed || iv.EndedAt != diedAt) {
			t.Errorf("%s: worker-1 ended %s at %s, want crashed at %s", r.Label(), iv.Ended, iv.EndedAt, diedAt)
		}
		if len(r.Calls) != 2 || r.Calls[1].Ended != faultsim.EndReturned {
			t.Errorf("%s: the second phase did not run to its end: %d calls", r.Label(), len(r.Calls))
		}
		for _, e := range r.Trace.Events() {
			if e.Actor == "worker-1" && e.At > diedAt {
				t.Errorf("%s: the dead worker still acted at %s: %s %s", r.Label(), e.At, e.Kind, e.Text)
			}
			if e.Kind == world.KindDrop && strings.Contains(e.Text, "dead process") {
				droppedToDead = true
			}
		}
	}
	if lateCrashes == 0 {
		t.Fatal("no run crashed worker-1 two seconds in, while its request was in flight")
	}
	if !droppedToDead {
		t.Error("no trace line says the reply came back to a dead process")
	}
}
