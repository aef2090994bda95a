package grader

import (
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// TestTriggeredInvocation: a call with a trigger starts at the instant of
// its event, inside the step that made it, and a call whose event never
// comes is never made (the phase ends without it, nothing left blocked).
func TestTriggeredInvocation(t *testing.T) {
	parsed, diags := gointerp.ParseSource("refund.go", readSource(t, referenceFile), []string{RefundkitPath})
	if diags != nil {
		t.Fatal(diags)
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
			sc := scenarioNamed(t, "redelivered-at-needs-check")
			sc.Phases[0].Invocations[1].When = &tc.trigger
			r := &run{seed: 1}
			execute(BubbleFromT(t), &sc, newInterpretedProgram(parsed), r)
			if r.internal != nil || r.deadlock != "" || r.leftover != "" || r.stopped != "" {
				t.Fatalf("internal %v, deadlock %q, leftover %q, stopped %q", r.internal, r.deadlock, r.leftover, r.stopped)
			}
			if !tc.starts {
				if len(r.invs) != 1 {
					t.Fatalf("%d calls made, want only worker-1's", len(r.invs))
				}
				return
			}
			if len(r.invs) != 2 || r.invs[1].ended != endReturned {
				t.Fatalf("%d calls made, want worker-2's too, and returned", len(r.invs))
			}
			// The event's instant: the first needs_check write, or the
			// first answer worker-1 got.
			var want time.Duration
			found := false
			for _, c := range r.env.Store().Changes() {
				if !found && tc.trigger.Status != "" && c.New == tc.trigger.Status {
					want, found = c.At, true
				}
			}
			for _, q := range r.env.Provider().Requests() {
				if !found && tc.trigger.Answered != "" && q.Worker == tc.trigger.Answered {
					want, found = q.AnsweredAt, true
				}
			}
			if !found {
				t.Fatal("the event never happened, yet worker-2 ran")
			}
			if got := r.invs[1].startedAt; got != want {
				t.Fatalf("worker-2 started at %s, want the event's instant %s", at(got), at(want))
			}
		})
	}
}
