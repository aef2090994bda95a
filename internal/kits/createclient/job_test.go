package createclient_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
)

// TestAScenarioAddedAsDataIsGraded adds a scenario to the problem's file,
// as an author would, and grades through the child's job path: the new
// scenario is run from the data alone, with nothing rebuilt.
func TestAScenarioAddedAsDataIsGraded(t *testing.T) {
	data, err := os.ReadFile(problemDir + "/scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(problemDir + "/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	added := string(data) + `
  - name: authors-own
    title: Three connections fail, then the answer is lost after the create lands
    vendor: {keys: true}
    operations:
      - {id: op-9, amount: 12, currency: EUR, payee: someone}
    faults:
      - {request: 1, kind: connect}
      - {request: 2, kind: connect}
      - {request: 3, kind: connect}
      - {request: 4, kind: timeout, lands: true}
    calls:
      - {worker: worker-1, op: op-9}
    expect: {op-9: [created]}
`
	job := faultsim.Job{Kit: createclient.Name, ScenariosFile: "scenarios.yaml", Scenarios: []byte(added), Only: []string{"authors-own"},
		File: "client.go", Source: string(src), Seeds: 3}
	var out strings.Builder
	interpreted.ServeJob(context.Background(), []faultsim.Kit{createclient.Kit{}}, job, faultsimtest.Bubble(t), &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var first, last faultsim.ChildMessage
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if first.Scenario == nil || first.Scenario.Name != "authors-own" || last.Report == nil || last.Streamed != 1 || last.Report.Status != faultsim.StatusPass {
		t.Fatalf("lines = %s", out.String())
	}
	// A passed scenario's trace stays in the child (gradewire's Kept):
	// the engine's report of the same job shows the added faults ran.
	rep, err := interpreted.RunJob(context.Background(), []faultsim.Kit{createclient.Kit{}}, job, faultsimtest.Bubble(t), nil)
	if err != nil || len(rep.Scenarios) != 1 {
		t.Fatalf("RunJob: %v, %+v", err, rep)
	}
	var trace strings.Builder
	for _, e := range rep.Scenarios[0].Trace {
		trace.WriteString(e.Text + "\n")
	}
	if !strings.Contains(trace.String(), "replays pay_1 for key#1 to request 5") {
		t.Errorf("the added faults did not run: %s", trace.String())
	}
}
