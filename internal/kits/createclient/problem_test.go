package createclient_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/problems"
)

// TestProblemPageLoads checks the page with the content loader, its kit
// named as code.kit and its scenarios file checked by this kit's schema.
func TestProblemPageLoads(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, f := range []string{"problem.md", "scenarios.yaml", "starter/client.go", "reference/client.go"} {
		b, err := os.ReadFile(problemDir + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		fsys["problems/idempotent-create-client-code/"+f] = &fstest.MapFile{Data: b}
	}
	kits := []problems.Kit{{Name: createclient.Name, Scenarios: true, CheckScenarios: func(file string, data []byte) []problems.Diagnostic {
		_, err := createclient.ParseScenarios(file, data)
		return problems.ErrorDiagnostics(file, err)
	}}}
	cat, err := problems.LoadWith(fsys, problems.Options{Kits: kits})
	if err != nil {
		t.Fatal(err)
	}
	p := cat.Problems[0]
	if p.Code == nil || p.Code.Kit != createclient.Name || !strings.Contains(p.Code.Starter, "CreatePayment") ||
		!strings.Contains(p.Code.Scenarios, "name: connect-errors") {
		t.Fatalf("code = %+v", p.Code)
	}
	if len(p.Parts) != 1 || len(p.Parts[0].Hints) != 3 || len(p.Parts[0].Rubric) < 5 {
		t.Errorf("want one part with three hints and a rubric, got %d parts", len(p.Parts))
	}
}
