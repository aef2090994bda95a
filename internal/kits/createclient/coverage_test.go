package createclient_test

import (
	"slices"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// TestReferenceCoverage: the reference's report says which fault classes
// fired in the scenarios it passed, and every class the built-in
// scenarios script fired in some run. It logs the scenarios whose faults
// do not all fire against the reference (lint warns of them).
func TestReferenceCoverage(t *testing.T) {
	rep := gradeSource(t, problemDir+"/reference/client.go", faultsim.Options{Seeds: 3})
	if rep.Status != faultsim.StatusPass {
		t.Fatalf("the reference: %+v", rep.Failed())
	}
	wire := rep.Wire(0)
	c := wire.Coverage
	if c == nil {
		t.Fatal("no coverage in a passing report")
	}
	for _, class := range []string{gradewire.FaultLostReply, gradewire.FaultLostRequest, gradewire.FaultConnection, gradewire.Fault5xx,
		gradewire.Fault429, gradewire.FaultSlow, gradewire.FaultStoreWrite, gradewire.FaultStoreRead, gradewire.FaultCrash} {
		if !slices.Contains(c.Fired, class) {
			t.Errorf("class %s did not fire in the reference's passed scenarios (fired: %v)", class, c.Fired)
		}
	}
	for _, sc := range rep.Scenarios {
		if len(sc.FaultsUnfired) > 0 {
			t.Logf("%s: never fired: %v", sc.Name, sc.FaultsUnfired)
		}
	}
	t.Logf("fired %v, unfired %v", c.Fired, c.Unfired)
}
