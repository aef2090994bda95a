package createclient_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
)

const validFile = `kit: createclient
scenarios:
  - name: one
    vendor: {keys: true}
    operations:
      - {id: op-1, amount: 100, currency: EUR, payee: acme}
    faults:
      - {request: 1, kind: timeout, lands: true}
    calls:
      - {worker: worker-1, op: op-1}
    expect: {op-1: [created]}
    checks: [no-duplicate]
`

func TestParseScenarios(t *testing.T) {
	list, err := createclient.ParseScenarios("s.yaml", []byte(validFile))
	if err != nil {
		t.Fatal(err)
	}
	p := list[0].Plan()
	if p.Name != "one" || len(p.Calls) != 1 || p.Calls[0].Subject != "op-1" || p.Budget <= 0 {
		t.Errorf("plan = %+v", p)
	}
	if v := list[0].Vendor; v.KeyLifetime == 0 || v.Timeout == 0 || v.LandsWithin == 0 {
		t.Errorf("defaults not filled: %+v", v)
	}
}

// TestLintNamesFileAndLine breaks the valid file one way at a time and
// wants the error to name the file, the line and what is wrong.
func TestLintNamesFileAndLine(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"unknown field", "    vendor: {keys: true}", "    vendor: {keys: true, colour: red}", "s.yaml:4: field colour not found"},
		{"unknown fault", "kind: timeout", "kind: timout", `s.yaml:8: scenario "one": unknown fault kind "timout"`},
		{"unknown invariant", "checks: [no-duplicate]", "checks: [no-duplicates]", `s.yaml:12: scenario "one": unknown invariant "no-duplicates"`},
		{"unknown kit", "kit: createclient", "kit: refund", `s.yaml:1: kit is "refund"`},
		{"undeclared operation", "{worker: worker-1, op: op-1}", "{worker: worker-1, op: op-9}", `s.yaml:10: scenario "one": call of operation "op-9"`},
		{"unknown status", "[created]", "[done]", `s.yaml:11: scenario "one": unknown status "done"`},
		{"bad status code", "kind: timeout, lands: true", "kind: status, status: 418", `s.yaml:8: scenario "one": status 418`},
		{"crash of no worker", "    checks: [no-duplicate]", "    checks: [no-duplicate]\n    crash: [worker-7]\n    restart: 1m", `s.yaml:13: scenario "one": crash of worker "worker-7"`},
		{"bad duration", "{request: 1, kind: timeout, lands: true}", "{request: 1, kind: slow, lands_after: soon}", "s.yaml:8: cannot unmarshal"},
		{"unfaultable call", "    checks: [no-duplicate]", "    checks: [no-duplicate]\n    call_faults:\n      - {call: Create, nth: 1}", `s.yaml:14: scenario "one": call "Create" cannot be made to fail`},
		{"outage ending before the run", "    checks: [no-duplicate]", "    checks: [no-duplicate]\n    call_faults:\n      - {call: Search, nth: 1, until: -1h}", `s.yaml:14: scenario "one": until is a time into the run, not -1h0m0s`},
		{"not yaml", "    vendor: {keys: true}", "    vendor: {keys: true", "s.yaml:"},
		// Scripts the vendor's rules exclude, each refused citing its rule.
		{"a scripted 409", "kind: timeout, lands: true", "kind: status, status: 409", `s.yaml:8: scenario "one": the vendor answers 409 only to a repeat of a key whose first request is still running (rule V6)`},
		{"a refusal of a repeat of a landed request", "{request: 1, kind: timeout, lands: true}", "{request: 1, kind: timeout, lands: true}\n      - {request: 2, kind: status, status: 422}",
			`s.yaml:9: scenario "one": request 2 resends request 1 under its key, so the vendor answers it by rule V5, not with a scripted 422`},
		{"a 429 to a repeat of a running request", "{request: 1, kind: timeout, lands: true}", "{request: 1, kind: slow, lands_after: 20s}\n      - {request: 2, kind: status, status: 429}",
			`s.yaml:9: scenario "one": request 2 resends request 1 under its key, so the vendor answers it by rule V6`},
		{"a refusal that creates", "kind: timeout, lands: true", "kind: status, status: 422, lands: true", `s.yaml:8: scenario "one": only a 5xx can follow a create that happened: a 422 runs nothing (rules V9, V10)`},
		{"held up and never landing", "kind: timeout, lands: true", "kind: timeout, lands_after: 5s", `s.yaml:8: scenario "one": a lost request held up on the way needs lands: true`},
		{"held up past lands_within", "kind: timeout, lands: true", "kind: timeout, lands: true, lands_after: 30s", `(rule V1)`},
		{"a redelivery at a time", "{worker: worker-1, op: op-1}", "{worker: worker-1, op: op-1}\n      - {worker: worker-2, op: op-1, redelivery: true, at: 10m}",
			`s.yaml:11: scenario "one": a redelivery comes when rule Q1 says, 15 minutes after a call of op-1 returned an error: leave out at`},
		{"a third redelivery", "{worker: worker-1, op: op-1}", "{worker: worker-1, op: op-1}\n      - {worker: w2, op: op-1, redelivery: true}\n      - {worker: w3, op: op-1, redelivery: true}\n      - {worker: w4, op: op-1, redelivery: true}",
			`s.yaml:13: scenario "one": the queue hands op-1 on at most 2 times (rule Q1)`},
		{"a redelivery of nothing", "{worker: worker-1, op: op-1}", "{worker: worker-1, op: op-1, redelivery: true}", `s.yaml:10: scenario "one": a redelivery of op-1 follows a call of it, and none comes before (rule Q1)`},
		{"sent before it was saved", "{id: op-1, amount: 100, currency: EUR, payee: acme}", "{id: op-1, amount: 100, currency: EUR, payee: acme, earlier: {key: k, ago: 1m, sent: true, sent_ago: 2m}}",
			`s.yaml:6: scenario "one": operation "op-1": sent_ago is when the saved plan was sent`},
		{"a script for a key sent within its lifetime from an old plan", "{id: op-1, amount: 100, currency: EUR, payee: acme}\n    faults:\n      - {request: 1, kind: timeout, lands: true}",
			"{id: op-1, amount: 100, currency: EUR, payee: acme, earlier: {key: k, ago: 30h, sent: true, sent_ago: 1h, landed: true}}\n    faults:\n      - {request: 1, kind: status, status: 422}",
			`rule V5`},
		{"endless faults overlapping", "{request: 1, kind: timeout, lands: true}", "{request: 1, kind: connect, until: 1h}\n      - {request: 3, kind: connect}", `s.yaml:9: scenario "one": two faults for request 3`},
		{"until on a timeout", "kind: timeout, lands: true", "kind: timeout, lands: true, until: 1h", `s.yaml:8: scenario "one": until repeats a fault that does nothing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(validFile, tt.old) {
				t.Fatalf("the valid file has no %q", tt.old)
			}
			_, err := createclient.ParseScenarios("s.yaml", []byte(strings.Replace(validFile, tt.old, tt.new, 1)))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

// TestProblemScenariosLint keeps the problem's own file clean.
func TestProblemScenariosLint(t *testing.T) {
	if n := len(loadScenarios(t)); n < 12 {
		t.Errorf("%d scenarios, want at least the 12 the problem promises", n)
	}
}

func TestLintRunsTheReference(t *testing.T) {
	ref, err := os.ReadFile(problemDir + "/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(problemDir + "/scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b := faultsimtest.Bubble(t)
	if errs := createclient.Lint(context.Background(), "scenarios.yaml", data, "reference/client.go", string(ref), b, 2); errs != nil {
		t.Fatalf("the problem's own file: %v", errs)
	}
	// No client can see a created payment at a vendor with neither keys
	// nor references after the answer was lost.
	old := "    expect: {op-1: [unknown]}\n\n  - name: rate-limited"
	if !strings.Contains(string(data), old) {
		t.Fatal("scenarios.yaml changed: update the test's edit")
	}
	broken := strings.Replace(string(data), old, "    expect: {op-1: [created]}\n\n  - name: rate-limited", 1)
	errs := createclient.Lint(context.Background(), "scenarios.yaml", []byte(broken), "reference/client.go", string(ref), b, 2)
	line := 1 + strings.Count(broken[:strings.Index(broken, "  - name: timeout-no-key")], "\n")
	want := fmt.Sprintf(`scenarios.yaml:%d: scenario "timeout-no-key": the reference reference/client.go fails it (settles)`, line)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), want) {
		t.Fatalf("errs = %v, want one saying %q", errs, want)
	}
	// Schema errors come back one per problem.
	errs = createclient.Lint(context.Background(), "s.yaml", []byte(strings.Replace(validFile, "kind: timeout", "kind: nope", 1)+"  - name: two\n"), "r.go", string(ref), b, 1)
	if len(errs) < 2 {
		t.Fatalf("errs = %v, want one per problem", errs)
	}
}
