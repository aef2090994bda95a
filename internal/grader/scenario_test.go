package grader

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	rk "github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// TestScenariosAreData: the suite survives a trip through YAML unchanged,
// the form in which authors will declare scenarios.
func TestScenariosAreData(t *testing.T) {
	suite := AsyncRefundSuite()
	if len(suite) < 20 {
		t.Fatalf("%d scenarios, want at least 20", len(suite))
	}
	b, err := yaml.Marshal(suite)
	if err != nil {
		t.Fatal(err)
	}
	var back []Scenario
	if err := yaml.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(suite, back) {
		t.Fatal("the suite changed on a trip through YAML")
	}
	for _, s := range suite {
		if err := s.Validate(); err != nil {
			t.Error(err)
		}
		if s.Title == "" || s.Description == "" {
			t.Errorf("scenario %s needs a title and a description", s.Name)
		}
	}
}

func TestScenarioFromYAML(t *testing.T) {
	src := `
name: lost-then-slow
title: A lost reply, then a slow one
description: In plain words.
records: [{request_id: r1, charge_id: ch_1, amount: 2500, status: pending}]
charges: [{id: ch_1, amount: 10000}]
faults:
  - {request: 1, kind: lost-reply}
  - {request: 2, kind: slow, processing: 30s, then: {kind: http-error, status: 503}}
phases:
  - name: run
    invocations: [{worker: worker-1, request_id: r1}]
  - name: later
    after: 10m
    reset_faults: true
    invocations: [{worker: worker-2, request_id: r1}]
expect: {status: [done, needs_check], refunds: 1}
`
	var s Scenario
	if err := yaml.Unmarshal([]byte(src), &s); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Faults[1].Processing != 30*time.Second || s.Faults[1].Then.Status != 503 || s.Phases[1].After != 10*time.Minute ||
		!s.Phases[1].ResetFaults || len(s.Expect.Status) != 2 || *s.Expect.Refunds != 1 {
		t.Fatalf("decoded %+v", s)
	}
}

func TestScenarioValidate(t *testing.T) {
	ok := func() Scenario {
		return Scenario{Name: "x", Phases: []Phase{{Invocations: []Invocation{{Worker: "w1", RequestID: "r1"}}}}}
	}
	tests := []struct {
		name   string
		change func(*Scenario)
		want   string
	}{
		{"no phases", func(s *Scenario) { s.Phases = nil }, "no phases"},
		{"unknown invariant", func(s *Scenario) { s.Invariants = []string{"nope"} }, `unknown invariant "nope"`},
		{"unknown defect", func(s *Scenario) { s.Defects = map[string]string{InvSameKey: "nope"} }, `unknown defect "nope"`},
		{"bad fault", func(s *Scenario) { s.Faults = []world.Fault{{Kind: "explode"}} }, `unknown fault kind "explode"`},
		{"duplicate worker", func(s *Scenario) { s.Phases[0].Invocations = append(s.Phases[0].Invocations, Invocation{Worker: "w1"}) }, "its own worker"},
		{"bad phase fault", func(s *Scenario) { s.Phases[0].Faults = []world.Fault{{Kind: world.FaultLostReply, BeforeKeys: true}} }, "before_keys applies to an"},
		{"negative refunds", func(s *Scenario) { s.Expect = expectEnd(-1) }, "expects -1 refunds"},
		{"crash worker missing", func(s *Scenario) { s.Explore = Exploration{CrashPoints: CrashEveryBoundary, CrashWorker: "w9"} }, `"w9" makes no invocation`},
		{"trigger names both", func(s *Scenario) {
			s.Phases[0].Invocations = append(s.Phases[0].Invocations, Invocation{Worker: "w2", RequestID: "r1", When: &Trigger{Status: rk.StatusDone, Answered: "w1"}})
		}, "one of the two"},
		{"trigger names nothing", func(s *Scenario) {
			s.Phases[0].Invocations = append(s.Phases[0].Invocations, Invocation{Worker: "w2", RequestID: "r1", When: &Trigger{}})
		}, "one of the two"},
		{"trigger on an unknown status", func(s *Scenario) {
			s.Phases[0].Invocations = append(s.Phases[0].Invocations, Invocation{Worker: "w2", RequestID: "r1", When: &Trigger{Status: "settled"}})
		}, `unknown status "settled"`},
		{"trigger on its own answer", func(s *Scenario) {
			s.Phases[0].Invocations = append(s.Phases[0].Invocations, Invocation{Worker: "w2", RequestID: "r1", When: &Trigger{Answered: "w2"}})
		}, `answer to "w2", which makes no call`},
		{"trigger on another phase's worker", func(s *Scenario) {
			s.Phases = append(s.Phases, Phase{Name: "later", Invocations: []Invocation{{Worker: "w2", RequestID: "r1", When: &Trigger{Answered: "w1"}}}})
		}, `answer to "w1", which makes no call in phase later`},
		{"key only, not the submission's", func(s *Scenario) {
			s.Charges = []ChargeSeed{{ID: "ch_1", Amount: 100, Refunds: []RefundSeed{{Amount: 10, Key: "k", KeyOnly: true}}}}
		}, "keeps only the submission's key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ok()
			tc.change(&s)
			err := s.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
