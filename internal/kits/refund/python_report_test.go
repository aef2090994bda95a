package refund_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// TestPythonReportNamesItsFunction: a Python answer's report names the
// function the user wrote, refund_money, in its trace, its minimal runs
// and its triggered calls, never the Go entry point it stands in for.
func TestPythonReportNamesItsFunction(t *testing.T) {
	needPython(t)
	rep := gradePython(t, readSource(t, pyStarterFile), faultsim.Options{FirstSeed: 1})
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"refund_money(r1) starts", "refund_money(r1) returns", "calls refund_money(r1)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report never says %q", want)
		}
	}
	if i := strings.Index(text, "RefundMoney"); i >= 0 {
		t.Errorf("the report names the Go entry point: …%s…", text[max(0, i-80):min(len(text), i+40)])
	}
}

// TestPythonLoopStopsTheGrade: a lane the kernel ends at the CPU time
// limit stops the grade there, as a Go answer's loop stops its grading
// child: status error, Stopped names the limit for the child's parent to
// word, and no later scenario runs to loop again. The answer lowers its
// own lane's limit (a process may), so the test needs no grading child.
func TestPythonLoopStopsTheGrade(t *testing.T) {
	needPython(t)
	src := "import resource\nimport refundkit\n\nasync def refund_money(request_id):\n" +
		"    resource.setrlimit(resource.RLIMIT_CPU, (1, 2))\n    while True:\n        pass\n"
	var scs []faultsim.Scenario
	for _, sc := range refund.Scenarios(refund.Builtin()) {
		if n := sc.Plan().Name; n == "success-on-retry" || n == "two-concurrent" || n == "lost-reply" {
			scs = append(scs, sc)
		}
	}
	var progressed []string
	rep, err := faultsim.GradeSource(context.Background(), []faultsim.Runtime{pyRuntime}, refund.Kit{}, scs, "refund.py", src, faultsimtest.Bubble(t),
		faultsim.Options{FirstSeed: 1, Lanes: 1, Progress: func(s faultsim.ScenarioResult) { progressed = append(progressed, s.Name) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != faultsim.StatusError || rep.Stopped != "cpu-time" || !strings.Contains(rep.Message, "killed by SIGXCPU") {
		w, _ := json.Marshal(rep.Wire(1).Scenarios[0].Invocations)
		t.Fatalf("status %s, stopped %q, message %q; want an error stopped at the CPU time limit: %s", rep.Status, rep.Stopped, rep.Message, w)
	}
	if len(rep.Scenarios) != len(progressed) || len(rep.Scenarios) >= len(scs) {
		t.Errorf("%d scenarios in the report, %v passed on as finished, of %d: the grade went on after the limit", len(rep.Scenarios), progressed, len(scs))
	}
}
