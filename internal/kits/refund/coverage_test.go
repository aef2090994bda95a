package refund_test

import (
	"context"
	"slices"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// TestReferenceCoverage: the reference's report says which fault classes
// fired in the scenarios it passed, and every class the built-in
// scenarios script fired in some run. It logs the scenarios whose faults
// do not all fire against the reference (lint warns of them).
func TestReferenceCoverage(t *testing.T) {
	rep := gradeSeed(t, readSource(t, referenceFile), 1)
	if rep.Status != gradewire.StatusPass {
		t.Fatalf("the reference: %s", rep.Message)
	}
	c := rep.Coverage
	if c == nil {
		t.Fatal("no coverage in a passing report")
	}
	for _, class := range []string{gradewire.FaultLostReply, gradewire.FaultLostRequest, gradewire.FaultConnection, gradewire.Fault5xx,
		gradewire.Fault429, gradewire.FaultSlow, gradewire.FaultStoreWrite, gradewire.FaultCrash} {
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

// TestUnfiredFaultIsReported: a fault on a request the code never sends
// fires in no run, and the scenario's report says so: a pass of it is
// vacuous as to that fault.
func TestUnfiredFaultIsReported(t *testing.T) {
	data := []byte(`kit: refund
scenarios:
  - name: late-fault
    title: A fault on a ninth request
    description: The provider would lose the reply to a ninth request, which one call never sends.
    records:
      - {request_id: r1, charge_id: ch_1, amount: 2500, currency: usd, status: pending}
    charges:
      - {id: ch_1, amount: 10000}
    faults:
      - {request: 1, kind: http-error, status: 503, type: api_error}
      - {request: 9, kind: lost-reply}
    phases:
      - name: run
        invocations:
          - {worker: worker-1, request_id: r1}
`)
	list, err := refund.ParseScenarios("late.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := refund.GradeSource(context.Background(), "refund.go", readSource(t, referenceFile), refund.Scenarios(list), faultsimtest.Bubble(t), faultsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := rep.Scenarios[0]
	if sc.Status != gradewire.StatusPass {
		t.Fatalf("the reference failed: %s", rep.Message)
	}
	if !slices.Equal(sc.FaultsFired, []string{gradewire.Fault5xx}) || !slices.Equal(sc.FaultsUnfired, []string{"the lost reply to request 9"}) {
		t.Errorf("fired %v, unfired %v", sc.FaultsFired, sc.FaultsUnfired)
	}
	if rep.Coverage == nil || !slices.Equal(rep.Coverage.Fired, []string{gradewire.Fault5xx}) || !slices.Equal(rep.Coverage.Unfired, []string{gradewire.FaultLostReply}) {
		t.Errorf("coverage %+v", rep.Coverage)
	}
}
