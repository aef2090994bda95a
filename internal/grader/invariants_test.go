package grader

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
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

// TestErrorTextReadInsideTheRun: the text of a returned error is read once,
// inside the run; an Error method that panics is reported as such, and the
// report is built without calling it again.
func TestErrorTextReadInsideTheRun(t *testing.T) {
	src := header + `type loud struct{ n *int }

func (e loud) Error() string {
	*e.n++
	if *e.n > 1 {
		panic("Error called again, outside the run")
	}
	panic("the error's own bug")
}

func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
	n := 0
	return "", loud{&n}
}
`
	rep := grade(t, src, 1, "missing-record")
	iv := rep.Scenarios[0].Invocations[0]
	if !strings.Contains(iv.Error, "its Error method panicked: the error's own bug") {
		t.Fatalf("invocation error %q", iv.Error)
	}
}

// TestStepLimitsSayWhatHappened: a loop that stops waiting after an hour
// is named at the instant it spun, and a loop that waits a millisecond
// between calls is named for the calls it made in all.
func TestStepLimitsSayWhatHappened(t *testing.T) {
	head := strings.Replace(header, "\"context\"\n", "\"context\"\n\t\"time\"\n", 1)
	tests := []struct {
		name, body, want string
	}{
		{"spins after an hour", "\ttime.Sleep(time.Hour)\n\tfor {\n\t\trefundkit.GetRecord(ctx, id)\n\t}\n",
			"5000 harness calls at one instant, +1h0m0s, without virtual time passing"},
		{"retries every millisecond", "\tfor {\n\t\trefundkit.GetRecord(ctx, id)\n\t\ttime.Sleep(time.Millisecond)\n\t}\n",
			"50000 harness calls in all, over "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := grade(t, head+"func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {\n"+tc.body+"}\n", 1, "repeat-after-done")
			msg := violated(rep)["repeat-after-done "+InvBoundedAttempts]
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("bounded-attempts says %q, want it to say %q", msg, tc.want)
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
