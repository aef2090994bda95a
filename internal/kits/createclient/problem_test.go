package createclient_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/faultline-dev/faultline/internal/problems"
)

// TestProblemPageLoads checks the page with the content loader as it is
// today. The loader does not know code.kit yet (the session that moves the
// problem to content/ teaches it), so the test spells the kit as
// code.grader, the field the loader has.
func TestProblemPageLoads(t *testing.T) {
	page, err := os.ReadFile(problemDir + "/problem.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "\n  kit: createclient\n") {
		t.Fatal("problem.md does not name kit createclient under code")
	}
	fsys := fstest.MapFS{
		"problems/idempotent-create-client-code/problem.md": {Data: []byte(strings.Replace(string(page), "\n  kit: createclient\n", "\n  grader: createclient\n", 1))},
	}
	for _, f := range []string{"starter/client.go", "reference/client.go"} {
		b, err := os.ReadFile(problemDir + "/" + f)
		if err != nil {
			t.Fatal(err)
		}
		fsys["problems/idempotent-create-client-code/"+f] = &fstest.MapFile{Data: b}
	}
	cat, err := problems.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	p := cat.Problems[0]
	if p.Code == nil || p.Code.Grader != "createclient" || !strings.Contains(p.Code.Starter, "CreatePayment") {
		t.Fatalf("code = %+v", p.Code)
	}
	if len(p.Parts) != 1 || len(p.Parts[0].Hints) != 3 || len(p.Parts[0].Rubric) < 5 {
		t.Errorf("want one part with three hints and a rubric, got %d parts", len(p.Parts))
	}
}
