package refund

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	rk "github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// TestScenariosAreData: every built-in scenario validates and says what it
// is about.
func TestScenariosAreData(t *testing.T) {
	suite := Builtin()
	if len(suite) < 20 {
		t.Fatalf("%d scenarios, want at least 20", len(suite))
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
		{"bad phase fault", func(s *Scenario) { s.Phases[0].Faults = []world.Fault{{Kind: world.FaultLostReply, BeforeKeys: true}} }, "before_keys scripts an answer the rules exclude"},
		{"negative refunds", func(s *Scenario) { s.Expect = expectEnd(-1) }, "expects -1 refunds"},
		{"in flight past the execution bound", func(s *Scenario) {
			s.Charges = []ChargeSeed{{ID: "ch_1", Amount: 100, Refunds: []RefundSeed{{Amount: 10, Key: "k", Age: 25 * time.Second, LandsIn: 6 * time.Second}}}}
		}, "rule P14 ends execution within 30s"},
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

// TestParseScenariosErrors: a scenarios file's mistakes are named at their
// file and line.
func TestParseScenariosErrors(t *testing.T) {
	const head = "kit: refund\nscenarios:\n  - name: one\n    title: One\n    description: d\n" +
		"    records: [{request_id: r1, charge_id: ch_1, amount: 2500, status: pending}]\n" +
		"    charges: [{id: ch_1, amount: 10000}]\n"
	const call = "    phases:\n      - name: run\n        invocations: [{worker: worker-1, request_id: r1}]\n"
	tests := []struct {
		name, file, want string
	}{
		{"unknown field", head + call + "    retries: 3\n", "f.yaml:11: field retries not found"},
		{"unknown fault kind", head + "    faults:\n      - {request: 1, kind: gremlins}\n" + call, `f.yaml:9: scenario "one": unknown fault kind "gremlins"`},
		{"unknown invariant", head + call + "    invariants: [no-double-refund, never-sad]\n", `f.yaml:11: scenario "one": unknown invariant "never-sad"`},
		{"unknown defect", head + call + "    defects: {no-double-refund: bad-luck}\n", `f.yaml:11: scenario "one": unknown defect "bad-luck"`},
		{"a crash point that cannot occur", head + call + "    explore: {crash_points: every-boundary, crash_worker: worker-9}\n",
			`f.yaml:11: scenario "one": crash worker "worker-9" makes no call, so it has no crash point`},
		{"unknown call", head + call + "    panics: [{call: Refund, nth: 1}]\n", `f.yaml:11: scenario "one": unknown call "Refund"`},
		{"a trigger on a worker that makes no call", head +
			"    phases:\n      - name: run\n        invocations:\n          - {worker: worker-1, request_id: r1, when: {answered: worker-7}}\n",
			`f.yaml:3: scenario one: worker-1: the trigger waits for an answer to "worker-7"`},
		{"a name used twice", head + call + "  - name: one\n    title: Again\n" + call, `f.yaml:11: scenario "one": the name is used twice`},
		{"another kit's file", strings.Replace(head, "kit: refund", "kit: createclient", 1) + call, `f.yaml:1: kit is "createclient"`},
		{"no phases", head, `f.yaml:3: scenario "one" has no phases`},
		{"a duration that is not one", head + call + "    budget: soon\n", "f.yaml:11: cannot unmarshal"},
		// A scenario scripts what the page's rules let it arrange, never an
		// answer they exclude.
		{"a 400 in front of the idempotency layer", head + "    faults:\n      - {request: 1, kind: lost-reply}\n      - {request: 2, kind: http-error, status: 400, before_keys: true}\n" + call,
			`f.yaml:10: scenario "one": before_keys scripts an answer the rules exclude: only the rate limiter (429, rule P13) and authentication (401, rule P3) answer in front of the idempotency layer`},
		{"a scripted 409", head + "    faults:\n      - {request: 2, kind: http-error, status: 409}\n" + call,
			`f.yaml:9: scenario "one": a 409 is the provider's answer to a key still in use (rule P7)`},
		{"a scripted 404", head + "    faults:\n      - {kind: http-error, status: 404}\n" + call, `f.yaml:9: scenario "one": a 404 comes from an unknown charge (rule P12)`},
		{"a phase's slow request refused by validation", head + "    phases:\n      - name: run\n        invocations: [{worker: worker-1, request_id: r1}]\n" +
			"        faults: [{kind: slow, processing: 5s, then: {kind: http-error, status: 400}}]\n",
			`f.yaml:11: scenario "one": a slow request has started executing, so it can only end in success or a 5xx (rule P14)`},
		{"a look-up answering 404", head + "    lookup_faults: [{kind: http-error, status: 404}]\n" + call, `f.yaml:8: scenario "one": a look-up fails with a 5xx (rule P15), not 404`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenarios("f.yaml", []byte(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := ParseScenarios("f.yaml", []byte(head+call)); err != nil {
		t.Errorf("a valid file: %v", err)
	}
}

// TestContentGuideRefundExample: the refund example of content/README.md
// is a file the kit accepts, and the guide's invariant table is the kit's.
func TestContentGuideRefundExample(t *testing.T) {
	guide, err := os.ReadFile("../../../content/README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(guide)
	start := strings.Index(text, "## Scenarios for the refund kit")
	end := strings.Index(text[max(start, 0):], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("content/README.md has no refund scenarios section")
	}
	section := text[start : start+end]
	_, rest, ok := strings.Cut(section, "```yaml\n")
	block, _, _ := strings.Cut(rest, "```")
	if !ok || !strings.HasPrefix(block, "# scenarios.yaml") {
		t.Fatal("the refund section has no scenarios.yaml example")
	}
	list, err := ParseScenarios("README.md", []byte(block))
	if err != nil {
		t.Fatalf("the guide's example does not parse: %v", err)
	}
	if len(list) != 1 || len(list[0].Phases) != 2 {
		t.Errorf("the example reads as %d scenarios", len(list))
	}
	var ids []string
	for _, line := range strings.Split(section, "\n") {
		if id, ok := strings.CutPrefix(line, "| `"); ok {
			id, _, _ = strings.Cut(id, "`")
			ids = append(ids, id)
		}
	}
	if !slices.Equal(ids, InvariantIDs) {
		t.Errorf("the guide's invariants are %v\nthe kit's %v", ids, InvariantIDs)
	}
}

// expectEnd is the Expectation "ends in one of statuses with n refunds".
func expectEnd(n int, statuses ...rk.Status) *Expectation {
	return &Expectation{Status: statuses, Refunds: &n}
}

// TestSuiteCopiesAreFresh: the scenarios the cache hands out are copies,
// equal to a fresh parse, and changing one changes no later one.
func TestSuiteCopiesAreFresh(t *testing.T) {
	data, err := os.ReadFile("../../../content/problems/async-refund/scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := ParseScenarios(builtinScenariosFile, data)
	if err != nil {
		t.Fatal(err)
	}
	first := Builtin()
	if !reflect.DeepEqual(first, fresh) {
		t.Fatal("the cached suite differs from a fresh parse")
	}
	for k := range first {
		first[k].Name += "-changed"
		if len(first[k].Phases) > 0 {
			first[k].Phases[0].Invocations[0].Worker = "changed"
		}
		if first[k].Expect != nil && len(first[k].Expect.Status) > 0 {
			first[k].Expect.Status[0] = "changed"
		}
		for inv := range first[k].Defects {
			first[k].Defects[inv] = "changed"
		}
	}
	if again := Builtin(); !reflect.DeepEqual(again, fresh) {
		t.Error("changing a copy changed the next one")
	}
}

// BenchmarkParseScenarios and BenchmarkAsyncRefundSuite compare reading the
// refund scenarios file with handing out a copy of it once read.
func BenchmarkParseScenarios(b *testing.B) {
	data, err := os.ReadFile("../../../content/problems/async-refund/scenarios.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ParseScenarios(builtinScenariosFile, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAsyncRefundSuite(b *testing.B) {
	for b.Loop() {
		_ = Builtin()
	}
}
