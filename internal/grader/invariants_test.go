package grader

import (
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// TestOutcomeSnapshotAtReturn: a worker that loses the claim returns
// in_progress while the winner is one step from recording done. The record
// is judged as the losing call left it, not after the winner's next step.
func TestOutcomeSnapshotAtReturn(t *testing.T) {
	src := header + `func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	ok, err := refundkit.Claim(ctx, id, 5*60*1000*1000*1000)
	if err != nil {
		return "", err
	}
	if !ok {
		rec, err := refundkit.GetRecord(ctx, id)
		if err != nil {
			return "", err
		}
		if rec.Status == refundkit.StatusDone {
			return refundkit.OutcomeDone, nil
		}
		return refundkit.OutcomeInProgress, nil
	}
	if err := refundkit.MarkDone(ctx, id); err != nil {
		return "", err
	}
	return refundkit.OutcomeDone, nil
}
`
	rep := grade(t, src, 1, "two-concurrent")
	if msg, bad := violated(rep)["two-concurrent "+InvOutcomeMatchesState]; bad {
		t.Fatalf("outcome-matches-state violated: %s", msg)
	}
}

// TestOwnerAliveAt: ends at the same virtual instant are ordered by their
// place in the trace; a lease expires at its instant.
func TestOwnerAliveAt(t *testing.T) {
	env := refundkit.NewEnv(openGate{}, refundkit.DefaultNetwork)
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
