package grader

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

func scenarioNamed(t *testing.T, name string) Scenario {
	t.Helper()
	for _, sc := range AsyncRefundSuite() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return Scenario{}
}

// TestCrashStopsTheWholeWorker: a crash at a call made from a goroutine the
// submission started kills the whole process. The invocation ends when the
// process dies, though its own goroutine waits forever for the dead one;
// the next phase starts; no other goroutine of the dead process reaches
// the world; the reply to its request in flight is dropped; and what stays
// blocked is not reported as a call that never ends.
func TestCrashStopsTheWholeWorker(t *testing.T) {
	src := strings.Replace(header, "\"context\"\n", "\"context\"\n\t\"time\"\n", 1) + `func RefundMoney(ctx context.Context, id string) (refundkit.Outcome, error) {
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
	parsed, diags := gointerp.ParseSource("refund.go", src, []string{RefundkitPath})
	if diags != nil {
		t.Fatal(diags)
	}
	sc := scenarioNamed(t, "crash-and-rerun")
	// The request is slow: its reply comes back after 5 s, by when a
	// heartbeat call has killed the process.
	sc.Faults = []world.Fault{{Request: 1, Kind: world.FaultSlow, Processing: 5 * time.Second}}
	base := &run{seed: 1}
	execute(BubbleFromT(t), &sc, newInterpretedProgram(parsed), base)
	crashAt, n := 0, 0
	for _, e := range base.env.Trace() {
		if e.Actor != "worker-1" || e.Kind != world.KindCall || strings.HasPrefix(e.Text, "RefundMoney") {
			continue
		}
		n++
		if e.At >= 2*time.Second {
			crashAt = n
			break
		}
	}
	if crashAt == 0 {
		t.Fatal("no call of worker-1 two seconds in")
	}

	r := &run{seed: 1, crash: world.CrashPoint{Call: crashAt, Before: true}, crashFor: "worker-1"}
	execute(BubbleFromT(t), &sc, newInterpretedProgram(parsed), r)
	if r.internal != nil {
		t.Fatal(r.internal)
	}
	if r.deadlock != "" || r.stopped != "" {
		t.Fatalf("the dead worker's blocked goroutine was taken for a deadlock (%q) or the run was stopped (%q)", r.deadlock, r.stopped)
	}
	iv := r.invs[0]
	if iv.ended != endCrashed || iv.endedAt != iv.worker.DiedAt {
		t.Fatalf("worker-1 ended %s at %s, want crashed at %s", iv.ended, iv.endedAt, iv.worker.DiedAt)
	}
	if len(r.invs) != 2 || r.invs[1].ended != endReturned {
		t.Fatalf("the second phase did not run to its end: %d invocations", len(r.invs))
	}
	diedAt := iv.worker.DiedAt
	droppedToDead := false
	for _, e := range r.env.Trace() {
		if e.Actor == "worker-1" && e.At > diedAt {
			t.Errorf("the dead worker still acted at %s: %s %s", at(e.At), e.Kind, e.Text)
		}
		if e.Kind == world.KindDrop && strings.Contains(e.Text, "dead process") {
			droppedToDead = true
		}
	}
	if !droppedToDead {
		t.Error("no trace line says the reply came back to a dead process")
	}
	for _, v := range checkRun(&sc, r) {
		if v.inv == InvBoundedAttempts {
			t.Errorf("bounded-attempts violated: %s", v.msg)
		}
	}
}
