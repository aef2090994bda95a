package refund_test

import (
	"bytes"
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

// TestPythonRerunsAreOneReport: a Python answer graded again in the same
// process (its lanes reused) is the same report, byte for byte, for
// answers that found two ways to differ:
//   - a task whose exception nobody read: asyncio said so when the
//     collector freed it, in whichever worker's output was being taken
//     then (key_per_attempt.py's first grade differed from its next);
//   - a run cut short by the shrink inside an exchange with its process
//     (at the gate of a call the process waits on): that lane must serve
//     no one again, or the next run reads the cut call's late answer as
//     its own (swallows_refusals.py made worker-1 of all-attempts-fail,
//     which it gets right, "never return").
func TestPythonRerunsAreOneReport(t *testing.T) {
	needPython(t)
	for _, tc := range []struct{ file, on string }{
		{"key_per_attempt.py", ""},
		{"swallows_refusals.py", "all-attempts-fail refusal-after-timeout-lookup-fails"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			src := readSource(t, "testdata/pycorpus/broken/"+tc.file)
			var first []byte
			for i := range 3 {
				rep := gradePythonOn(t, src, tc.on)
				if tc.on != "" && (rep.Scenarios[0].Name != "all-attempts-fail" || rep.Scenarios[0].Status != "pass") {
					t.Errorf("grade %d: all-attempts-fail %s, want pass", i+1, rep.Scenarios[0].Status)
				}
				got := sanitizedJSON(t, rep)
				if first == nil {
					first = got
				} else if !bytes.Equal(first, got) {
					t.Fatalf("grade %d differs from the first", i+1)
				}
			}
		})
	}
}

// TestPythonTimeSleepRefusedAtItsLine: time.sleep in a call would hold
// the whole event loop for real seconds in which no virtual time passes;
// it ends the call at its line, and an except Exception around it does
// not hide that. time.sleep(0) blocks nothing and is let be.
func TestPythonTimeSleepRefusedAtItsLine(t *testing.T) {
	needPython(t)
	src := "import time\nimport refundkit\nfrom refundkit import Outcome\n\nasync def refund_money(request_id):\n" +
		"    time.sleep(0)\n    try:\n        time.sleep(2)\n    except Exception:\n        return Outcome.DONE\n    return Outcome.DONE\n"
	rep := gradePythonOn(t, src, "success-on-retry")
	iv := rep.Scenarios[0].Invocations[0]
	if iv.Ended != "panicked" || !strings.Contains(iv.Panic, "BlockingSleep: time.sleep(2) would block the event loop") || !strings.HasSuffix(iv.Panic, "(line 8)") {
		t.Errorf("the call %+v; want it panicked with BlockingSleep at line 8", iv)
	}
}

// TestPythonSubmissionImportsSSL: the runtime keeps asyncio from loading
// ssl (runtime.py), and a submission that imports it still gets it.
func TestPythonSubmissionImportsSSL(t *testing.T) {
	needPython(t)
	src := strings.Replace(readSource(t, pyReferenceFile), "import asyncio\n", "import asyncio\nimport ssl\nassert ssl.PROTOCOL_TLS_CLIENT\n", 1)
	if !strings.Contains(src, "import ssl") {
		t.Fatal("the reference has no line import asyncio")
	}
	if rep := gradePythonOn(t, src, "success-on-retry"); rep.Status != "pass" {
		t.Errorf("a reference that imports ssl: %s %s", rep.Status, rep.Message)
	}
}
