package refund

import (
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// TestOwnerAliveAt: ends at the same virtual instant are ordered by their
// place in the trace; a lease expires at its instant.
func TestOwnerAliveAt(t *testing.T) {
	env := world.NewEnv(openGate{}, world.DefaultNetwork)
	start := env.Start()
	owner := &invocation{Invocation: Invocation{Worker: "worker-1"}, ended: endReturned, endedAt: time.Second, endSeq: 7}
	f := &runFacts{r: &run{env: env, invs: []*invocation{owner}}}
	held := refundkit.Record{Status: refundkit.StatusProcessing, Owner: "worker-1", LeaseUntil: start.Add(time.Minute)}
	tests := []struct {
		name string
		rec  refundkit.Record
		t    time.Duration
		seq  int
		want bool
	}{
		{"owner ends later in the same instant", held, time.Second, 5, true},
		{"owner had ended earlier in the same instant", held, time.Second, 9, false},
		{"owner ends at a later instant", held, 500 * time.Millisecond, 9, true},
		{"lease expired at that very instant", refundkit.Record{Status: refundkit.StatusProcessing, Owner: "worker-1", LeaseUntil: start.Add(time.Second)}, time.Second, 5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.ownerAliveAt(tc.rec, tc.t, tc.seq); got != tc.want {
				t.Fatalf("ownerAliveAt = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCatalogueIsComplete: every invariant of the one table has its words,
// a defect the report knows and a check, under an id of its own.
func TestCatalogueIsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, inv := range catalogue {
		switch {
		case inv.ID == "" || seen[inv.ID]:
			t.Errorf("invariant %q: missing or repeated id", inv.ID)
		case inv.Title == "" || inv.Why == "":
			t.Errorf("invariant %s: no title or why", inv.ID)
		case DefectTitle(inv.Defect) == "":
			t.Errorf("invariant %s points to unknown defect %q", inv.ID, inv.Defect)
		case inv.Check == nil:
			t.Errorf("invariant %s has no check", inv.ID)
		}
		seen[inv.ID] = true
	}
	if len(catalogue) != 15 {
		t.Errorf("%d invariants, want the 15 the problem page and content/README.md describe", len(catalogue))
	}
}
