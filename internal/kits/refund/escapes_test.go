package refund_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/mutation"
)

// TestClosedEscapes: the mutants the survivors file once documented as
// escapes are each caught by the scenario written for them, at the
// invariant that names their defect, while the correct file they were
// made from passes that scenario. The full mutation run (TestMutationFull)
// would notice too, but it runs only when asked.
func TestClosedEscapes(t *testing.T) {
	tests := []struct {
		file, mutant, scenario, invariant string
	}{
		{"dec5_embedded_worker.go", "drop-statement@140:4", "server-error-then-outage", refund.InvUnknownNotFailed},
		{"dec5_phases.go", "drop-statement@170:4", "two-writes-fail", refund.InvOutcomeMatchesState},
		{"dec5_phases.go", "drop-statement@177:4", "failed-write-fails", refund.InvOutcomeMatchesState},
		{"dec5_phases.go", "negate-condition@61:6", "load-panics-under-live-claim", refund.InvExclusiveClaim},
		{"dec5_iter_schedule.go", "negate-condition@222:7", "two-writes-fail", refund.InvOutcomeMatchesState},
		{"dec5_lookup_always.go", "negate-condition@62:94", "two-writes-fail", refund.InvOutcomeMatchesState},
		{"dec5_phases.go", "negate-condition@166:7", "two-writes-fail", refund.InvOutcomeMatchesState},
		{"dec5_plain_loop.go", "negate-condition@187:87", "two-writes-fail", refund.InvOutcomeMatchesState},
		{"dec5_plain_loop.go", "negate-condition@194:89", "failed-and-fallback-writes-fail", refund.InvOutcomeMatchesState},
		{"dec5_generic_policy.go", "merge-cases@161:4", "caller-cancels-nothing-landed", refund.InvDoneMeansRefunded},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.mutant, func(t *testing.T) {
			path := filepath.Join("testdata", "corpus", "correct", tt.file)
			src := readSource(t, path)
			ms, err := mutation.Mutants(src, refundMutation)
			if err != nil {
				t.Fatal(err)
			}
			var mutant string
			for _, m := range ms {
				if m.ID == tt.mutant {
					mutant = m.Source
				}
			}
			if mutant == "" {
				t.Fatalf("%s has no mutant %s any more: find it again", tt.file, tt.mutant)
			}
			grade := func(src string) *gradewire.Report {
				rep, err := refund.GradeSource(context.Background(), "refund.go", src, scenariosNamed(t, tt.scenario), faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
				if err != nil {
					t.Fatal(err)
				}
				return rep
			}
			if rep := grade(src); rep.Status != gradewire.StatusPass {
				t.Fatalf("the correct file fails %s: %s %v", tt.scenario, rep.Message, violated(rep))
			}
			rep := grade(mutant)
			if _, ok := violated(rep)[tt.scenario+" "+tt.invariant]; !ok {
				t.Fatalf("the mutant is not caught at %s in %s: %s %v", tt.invariant, tt.scenario, rep.Message, violated(rep))
			}
		})
	}
}
