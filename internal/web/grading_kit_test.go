package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
)

// kitSlug is the shipped create-client code problem.
const kitSlug = "idempotent-create-client-code"

// TestGradeKitProblemThroughTheWeb presses Grade on the shipped
// create-client problem with its starter and its reference, graded for real: the server
// binary is built here and serves as the sandboxed grading child, behind
// the dispatcher the server wires, so the run goes through the same pool
// and the same pages as the refund problem's.
func TestGradeKitProblemThroughTheWeb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	shipped := NewContent(cat)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool := sandbox.NewPool(&sandbox.Runner{Executable: bin, Args: []string{gradewire.ChildCommand}, Limits: sandbox.DefaultLimits(), Logger: log}, 1, 4)
	t.Cleanup(func() { pool.Close() })
	g := &grading.Dispatcher{Service: grading.New(pool, log), Content: shipped}
	ts := newGradingTestServer(t, g, func(c *Config) { c.Catalog, c.Content = nil, shipped })
	p, _ := cat.Problem(kitSlug)
	// The spoken prompt leads to the code problem.
	ts.newBrowser(t).get("/problems/idempotent-create-client").mustContain(t, `href="/problems/`+kitSlug+`"`)

	tests := []struct {
		name, code, verdict string
		want                []string // in the report's HTML
	}{
		{"starter", p.Code.Starter, gradewire.StatusFail, []string{"connect-errors", "plan-before-send"}},
		{"reference", p.Code.Reference, gradewire.StatusPass, []string{"connect-errors", "key-expired"}},
	}
	// A scenario added to the content after start-up (as -watch loads it)
	// is graded from then on, with no rebuild.
	added := *p
	code := *p.Code
	code.Scenarios += `
  - name: added-after-start
    title: A scenario the binary was not built with
    vendor: {name: plain}
    operations:
      - {id: op-9, amount: 100, currency: EUR, payee: zed, memo: added}
    faults:
      - {request: 1, kind: timeout, lands: true}
    calls:
      - {worker: worker-1, op: op-9}
    expect: {op-9: [unknown]}
`
	added.Code = &code
	reloaded := &problems.Catalog{Problems: []*problems.Problem{&added}}
	tests = append(tests, struct {
		name, code, verdict string
		want                []string
	}{"reference after a reload", p.Code.Reference, gradewire.StatusPass, []string{"added-after-start"}})

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "reference after a reload" {
				shipped.Replace(reloaded)
			}
			b := ts.newBrowser(t)
			b.get("/problems/"+kitSlug).mustContain(t, "CreatePayment")
			resp := b.postCode("/problems/"+kitSlug+"/grade", tt.code, true)
			if resp.status != 202 {
				t.Fatalf("Grade: status %d: %s", resp.status, resp.body)
			}
			var started gradeStarted
			if err := json.Unmarshal([]byte(resp.body), &started); err != nil {
				t.Fatalf("Grade answered %q: %v", resp.body, err)
			}
			// The progress counts to the scenarios file's total, as for the
			// refund problem.
			served, _ := shipped.Problem(kitSlug)
			if total := len(served.Code.ScenarioNames); total < 20 || started.Total != total {
				t.Errorf("Grade's total is %d; the served scenarios file has %d", started.Total, total)
			}
			events := b.events(started.EventsURL)
			first := decode[progressData](t, events.waitFor("progress"), "progress")
			if first.Total != started.Total || first.Finished != 1 {
				t.Errorf("first progress %+v; want 1 of %d", first, started.Total)
			}
			rep := decode[reportData](t, events.waitFor("report"), "report")
			if rep.Verdict != tt.verdict {
				t.Fatalf("verdict %q (%s), want %q", rep.Verdict, rep.Summary, tt.verdict)
			}
			for _, w := range tt.want {
				if !strings.Contains(rep.HTML, w) {
					t.Errorf("the report lacks %q", w)
				}
			}
			// The run is in the history, with its report, as a refund run is.
			run, err := ts.store.GradeRun(context.Background(), started.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if run.Status != storage.GradeDone || run.Summary.Verdict != tt.verdict || run.Summary.ScenariosTotal < 20 || len(run.ReportJSON) == 0 {
				t.Errorf("stored run: status %q, summary %+v, %d bytes of report", run.Status, run.Summary, len(run.ReportJSON))
			}
			b.get(started.RunURL).mustContain(t, "connect-errors")
			// Check answers at once through the same grader, with the short
			// list the scenarios file declares (check).
			check := b.postCode("/problems/"+kitSlug+"/check", tt.code, true)
			var res checkResult
			if err := json.Unmarshal([]byte(check.body), &res); err != nil || check.status != 200 || res.Verdict != tt.verdict {
				t.Errorf("Check: status %d, verdict %q (%v): %.300s", check.status, res.Verdict, err, check.body)
			}
			var checked []string
			for _, sc := range res.Scenarios {
				checked = append(checked, sc.Name)
			}
			if want := served.Code.CheckScenarios; len(want) == 0 || !slices.Equal(checked, want) {
				t.Errorf("Check ran %q; want the file's check list %q", checked, want)
			}
		})
	}
}
