package refund_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// The problem's own two files: the starter shows every defect the problem
// seeds, and the reference passes every scenario on every seed (a
// scenario no correct solution could pass would show here).

func TestStarterShowsEverySeedDefect(t *testing.T) {
	rep := gradeSeed(t, readSource(t, starterFile), 1)
	if rep.Status != gradewire.StatusFail || rep.ExitCode() != 1 {
		t.Fatalf("status %s exit %d: %s", rep.Status, rep.ExitCode(), rep.Message)
	}
	got := violated(rep)
	for _, want := range []string{
		"all-attempts-fail done-means-refunded",   // marks done after every attempt failed
		"invalid-request done-means-refunded",     // marks done after a definitive 400
		"invalid-request permanent-not-retried",   // every error swallowed and retried
		"lost-reply no-double-refund",             // no idempotency key
		"success-on-retry same-key",               // no idempotency key
		"every-reply-lost no-double-refund",       // no idempotency key
		"rate-limited-429 backoff",                // no backoff, Retry-After ignored
		"two-concurrent exclusive-claim",          // check-then-act
		"two-concurrent no-double-refund",         // check-then-act
		"crash-and-rerun no-double-refund",        // crash window
		"helper-panics refund-recorded",           // a panic after the refund loses it
		"missing-record missing-record-clear",     // nil record dereferenced
		"live-claim exclusive-claim",              // ignores another worker's claim
		"week-later-key-expired no-double-refund", // blind resend
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("the starter should violate %s", want)
		}
	}
	fixed := map[string]bool{}
	for _, d := range rep.Summary.Defects {
		fixed[d.ID] = d.Fixed
	}
	for _, id := range []string{refund.DefectSwallowedErrors, refund.DefectDoneAfterFailure, refund.DefectNoIdempotencyKey, refund.DefectCheckThenAct,
		refund.DefectCrashWindow, refund.DefectNoBackoff, refund.DefectMissingRecord, refund.DefectBlindResend} {
		if fixed[id] {
			t.Errorf("defect %s reported fixed in the starter", id)
		}
	}
	// The starter never marks anything failed: it must not be told it fixed
	// a mistake that only rewrites make.
	var text bytes.Buffer
	rep.WriteText(&text)
	original, _, _ := strings.Cut(text.String(), "Mistakes a rewrite can make:")
	if strings.Contains(original, refund.DefectUnknownAsFailed) || !strings.Contains(text.String(), "avoided   "+refund.DefectUnknownAsFailed) {
		t.Errorf("unknown-as-failed should be listed as a rewrite mistake the starter avoided:\n%s", text.String())
	}
	if msg := got["lost-reply no-double-refund"]; !strings.Contains(msg, "2 refunds for r1") || !strings.Contains(msg, "#2") {
		t.Errorf("the double-refund message does not name its evidence: %q", msg)
	}
}

// TestReferencePassesEverySeed grades the reference over 200 seeds (20 with
// -short): each single-run scenario with every seed, each explored
// scenario with enough starting seeds that its schedules cover them all.
func TestReferencePassesEverySeed(t *testing.T) {
	seeds := int64(200)
	if testing.Short() {
		seeds = 20
	}
	prog, diags := interpreted.Interpret(refund.Kit{}, "refund.go", readSource(t, referenceFile))
	if diags != nil {
		t.Fatal(diags)
	}
	b := faultsimtest.Bubble(t)
	for _, sc := range refund.Builtin() {
		step := int64(1)
		if sc.Explore.Schedules > 1 {
			step = int64(sc.Explore.Schedules)
		}
		limit := seeds
		if sc.Explore.CrashPoints != "" && limit > 40 {
			// Crash runs differ by seed only in the random jitter.
			limit = 40
		}
		t.Run(sc.Name, func(t *testing.T) {
			for seed := int64(1); seed <= limit; seed += step {
				rep, err := refund.Grade(context.Background(), prog, refund.Scenarios([]refund.Scenario{sc}), b, faultsim.Options{FirstSeed: seed})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Status != gradewire.StatusPass {
					var buf bytes.Buffer
					rep.WriteText(&buf)
					t.Fatalf("seed %d:\n%s", seed, buf.String())
				}
			}
		})
	}
}
