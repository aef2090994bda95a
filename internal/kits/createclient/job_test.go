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
	var last faultsim.ChildMessage
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	if last.Report == nil || len(last.Report.Scenarios) != 1 || last.Report.Scenarios[0].Name != "authors-own" || last.Report.Status != faultsim.StatusPass {
		t.Fatalf("last line = %s", lines[len(lines)-1])
	}
	trace, _ := json.Marshal(last.Report.Scenarios[0].Trace)
	if !strings.Contains(string(trace), "replays pay_1 for key#1 to request 5") {
		t.Errorf("the added faults did not run: %s", trace)
	}
}
