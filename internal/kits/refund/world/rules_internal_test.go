package world

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// TestTheTableDrivesTheProvider: the provider's answers come from the
// tables and nothing else. Without rule P7's entry, a request under a key
// still running is not refused 409 but executes a second time: no other
// code stood behind the table.
func TestTheTableDrivesTheProvider(t *testing.T) {
	run := func(table []step) []Request {
		saved := arrival
		arrival = table
		defer func() { arrival = saved }()
		var env *Env
		faultsimtest.Bubble(t)(func() {
			sched := faultsim.NewScheduler(1)
			env = NewEnv(sched, DefaultNetwork)
			env.Provider().AddCharge("ch_1", 10000)
			env.Provider().AddFault(Fault{Request: 1, Kind: FaultSlow, Processing: 30 * time.Second})
			w := env.NewWorker("worker-1", CrashPoint{})
			sched.Go(w.ID, func() {
				p := refundkit.RefundParams{Charge: "ch_1", Amount: 2500, IdempotencyKey: "k1", Reference: "r1"}
				w.CreateRefund(context.Background(), p)
				w.CreateRefund(context.Background(), p)
			})
			if stopped := sched.Run(time.Hour); stopped != "" {
				t.Fatalf("stopped: %s", stopped)
			}
		})
		return env.Provider().Requests()
	}
	if got := run(arrival); got[1].Rule != "P7" || got[1].Applied {
		t.Fatalf("with the page's table, request 2 got rule %q (applied %v), want a 409 by P7", got[1].Rule, got[1].Applied)
	}
	var without []step
	for _, s := range arrival {
		if s.rule != "P7" {
			without = append(without, s)
		}
	}
	if got := run(without); got[1].Rule == "P7" {
		t.Fatalf("without P7's entry request 2 still got a 409: something besides the table answers it")
	}
	for _, table := range [][]step{arrival, completion} {
		for _, s := range table {
			if RuleWords(s.rule) == "" {
				t.Errorf("a table entry keeps rule %q, which is not in Rules", s.rule)
			}
		}
	}
}
