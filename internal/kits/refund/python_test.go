package refund_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/pyrun"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/kits/refund/pyrefund"
	"github.com/faultline-dev/faultline/internal/pyenv"
)

const (
	pyStarterFile   = "../../../content/problems/async-refund/starter/refund.py"
	pyReferenceFile = "../../../content/problems/async-refund/reference/refund.py"
)

// pyRuntime grades Python answers with the kit's Python API.
var pyRuntime = pyrun.Runtime{Bindings: map[string]pyrun.Binding{refund.Name: pyrefund.Binding()}}

// needPython skips a test where Python cannot grade (no python3), and
// gives the leave to run it unconfined (pyenv.UnconfinedEnv): these tests
// grade in this process, with no grading child to confine python3 through
// (TestPythonHostileContained grades confined, through one).
func needPython(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	if os.Getenv(pyenv.UnconfinedEnv) != "1" {
		t.Setenv(pyenv.UnconfinedEnv, "1")
	}
}

// gradePython grades Python source against the built-in scenarios.
func gradePython(t *testing.T, source string, opt faultsim.Options) *gradewire.Report {
	t.Helper()
	rep, err := faultsim.GradeSource(context.Background(), []faultsim.Runtime{pyRuntime}, refund.Kit{}, refund.Scenarios(refund.Builtin()),
		"refund.py", source, faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Wire(opt.FirstSeed)
}

func TestPythonReferencePasses(t *testing.T) {
	needPython(t)
	rep := gradePython(t, readSource(t, pyReferenceFile), faultsim.Options{FirstSeed: 1})
	if rep.Status != faultsim.StatusPass {
		for _, sc := range rep.Scenarios {
			for _, inv := range sc.Invariants {
				if inv.Status != "pass" && inv.Status != "not-checked" {
					t.Errorf("%s: %s %s: %s", sc.Name, inv.ID, inv.Status, inv.Message)
				}
			}
		}
		t.Fatalf("the Python reference: %s %s", rep.Status, rep.Message)
	}
}

// violatedIDs maps each scenario of rep to the invariants it violated.
func violatedIDs(rep *gradewire.Report) map[string][]string {
	out := map[string][]string{}
	for _, sc := range rep.Scenarios {
		for _, inv := range sc.Invariants {
			if inv.Status == "violated" {
				out[sc.Name] = append(out[sc.Name], inv.ID)
			}
		}
	}
	return out
}

// languageDifferences are the scenarios where the two starters, each
// the snippet as its language writes it, break different invariants, and
// why.
var languageDifferences = map[string]struct{ goV, pyV, why string }{
	"load-fails": {"outcome-matches-state", "",
		"Go's starter drops GetRecord's error (rec, _ :=) and panics on the nil record; in Python the load's exception propagates by itself, an error to the caller, as the scenario asks"},
	"caller-deadline-first-request": {"same-key", "no-double-refund same-key expected-end-state",
		"a caller's deadline cancels a Python call (CancelledError, as asyncio.wait_for does) where a Go call only sees its context end: Go's starter goes on, its resends fail fast and it marks the record done; Python's ends at once, leaving the record pending, and the rerun refunds again under a new key"},
	"caller-cancels-nothing-landed": {"done-means-refunded same-key backoff expected-end-state", "same-key backoff",
		"the caller's cancel ends a Python call at once (CancelledError) where a Go call only sees its context end: Go's starter goes on, takes the refused resend for the end of its loop and marks the record done with no refund; Python's ends before it writes anything"},
}

// TestPythonStarterFailsAsGoStarter: the Python starter has the Go
// starter's seven defects, so every scenario breaks the same invariants
// under the same seed, and the summary lists the same defects unfixed.
func TestPythonStarterFailsAsGoStarter(t *testing.T) {
	needPython(t)
	opt := faultsim.Options{FirstSeed: 1}
	goRep := grade(t, readSource(t, starterFile), opt)
	pyRep := gradePython(t, readSource(t, pyStarterFile), opt)
	goV, pyV := violatedIDs(goRep), violatedIDs(pyRep)
	for _, sc := range goRep.Scenarios {
		g, p := strings.Join(goV[sc.Name], " "), strings.Join(pyV[sc.Name], " ")
		if d, ok := languageDifferences[sc.Name]; ok {
			if g != d.goV || p != d.pyV {
				t.Errorf("%s: the Go starter violates [%s], the Python starter [%s]; want [%s] and [%s] (%s)", sc.Name, g, p, d.goV, d.pyV, d.why)
			}
			continue
		}
		if g != p {
			t.Errorf("%s: the Go starter violates [%s], the Python starter [%s]", sc.Name, g, p)
		}
	}
	if len(pyRep.Scenarios) != len(goRep.Scenarios) {
		t.Errorf("%d scenarios in Python, %d in Go", len(pyRep.Scenarios), len(goRep.Scenarios))
	}
	unfixed := func(r *gradewire.Report) (ids []string) {
		for _, d := range r.Summary.DefectsOfKind(gradewire.DefectKindOriginal) {
			if !d.Fixed {
				ids = append(ids, d.ID)
			}
		}
		return ids
	}
	if g, p := unfixed(goRep), unfixed(pyRep); !slices.Equal(g, p) || len(g) != 7 {
		t.Errorf("defects left: Go %v, Python %v; want the same seven", g, p)
	}
}

// TestPythonReferenceOverSeeds: the Python reference passes every
// scenario under other seeds too, and each grade, made again, is the same
// report byte for byte: the event loop's choices are the engine's.
func TestPythonReferenceOverSeeds(t *testing.T) {
	needPython(t)
	src := readSource(t, pyReferenceFile)
	for _, seed := range []int64{2, 3, 17, 1000} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			opt := faultsim.Options{FirstSeed: seed}
			first := gradePython(t, src, opt)
			if first.Status != faultsim.StatusPass {
				t.Fatalf("seed %d: %s %s", seed, first.Status, first.Message)
			}
			if again := gradePython(t, src, opt); !bytes.Equal(sanitizedJSON(t, first), sanitizedJSON(t, again)) {
				t.Fatalf("seed %d: the report differs on a rerun", seed)
			}
		})
	}
}

// TestPythonGoldenReports grades the Python starter and reference, seed 1,
// against their golden reports (regenerate with -update), twice: a rerun
// is the same report.
func TestPythonGoldenReports(t *testing.T) {
	needPython(t)
	for name, path := range map[string]string{"starter-python": pyStarterFile, "reference-python": pyReferenceFile} {
		t.Run(name, func(t *testing.T) {
			src := readSource(t, path)
			rep := gradePython(t, src, faultsim.Options{FirstSeed: 1})
			rep.Problem = "async-refund"
			got := sanitizedJSON(t, rep)
			again := gradePython(t, src, faultsim.Options{FirstSeed: 1})
			again.Problem = "async-refund"
			if !bytes.Equal(got, sanitizedJSON(t, again)) {
				t.Fatal("the report differs on a rerun")
			}
			golden := filepath.Join("testdata", "golden", name+".json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the report differs from %s (run go test -run TestPythonGoldenReports -update and review the diff)", golden)
			}
		})
	}
}

// concurrentPython is a correct answer that does things at once inside
// one call: it loads the record and looks at the provider together
// (gather), sends under a deadline of its own (wait_for on a task), and
// waits an hour of the grader's clock between tries.
const concurrentPython = `import asyncio
import refundkit
from refundkit import Outcome, Status

async def refund_money(request_id: str) -> Outcome:
    record = await refundkit.get_record(request_id)
    if record is None:
        raise LookupError(request_id)
    if record.status == Status.DONE:
        return Outcome.DONE
    if not await refundkit.claim(request_id, 7200):
        return Outcome.IN_PROGRESS
    rec, held = await asyncio.gather(refundkit.get_record(request_id), refundkit.list_refunds(record.charge_id))
    if any(r.reference == request_id for r in held):
        await refundkit.mark_done(request_id)
        return Outcome.DONE
    for attempt in range(2):
        send = asyncio.create_task(refundkit.create_refund(rec.charge_id, rec.amount, idempotency_key="k-" + request_id, reference=request_id))
        try:
            await asyncio.wait_for(send, 5)
            await refundkit.mark_done(request_id)
            return Outcome.DONE
        except (TimeoutError, refundkit.RefundKitError) as e:
            refundkit.log("attempt %d: %r", attempt, e)
            await asyncio.sleep(3600)
    await refundkit.mark_needs_check(request_id, "unknown")
    return Outcome.UNKNOWN
`

// TestPythonConcurrencyInOneCall: gather, create_task, wait_for and sleep
// run on the engine's clock and choices: the calls gathered start at the
// same virtual instant, an hour's sleep is an hour of the trace, and a
// rerun is the same report.
func TestPythonConcurrencyInOneCall(t *testing.T) {
	needPython(t)
	scs := refund.Scenarios(refund.Builtin())
	var picked []faultsim.Scenario
	for _, sc := range scs {
		if n := sc.Plan().Name; n == "success-on-retry" || n == "every-reply-lost" || n == "two-concurrent" {
			picked = append(picked, sc)
		}
	}
	grade := func() (*gradewire.Report, []byte) {
		rep, err := faultsim.GradeSource(context.Background(), []faultsim.Runtime{pyRuntime}, refund.Kit{}, picked,
			"refund.py", concurrentPython, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
		if err != nil {
			t.Fatal(err)
		}
		w := rep.Wire(1)
		return w, sanitizedJSON(t, w)
	}
	rep, first := grade()
	if _, again := grade(); !bytes.Equal(first, again) {
		t.Fatal("the report differs on a rerun")
	}
	if len(rep.Scenarios) != 3 {
		t.Fatalf("%d scenarios graded, want 3: %s", len(rep.Scenarios), rep.Message)
	}
	var lines []string
	for _, sc := range rep.Scenarios {
		for _, ev := range sc.Trace {
			lines = append(lines, sc.Name+" "+ev.At+" "+ev.Actor+" "+ev.Text)
		}
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{
		"success-on-retry +0s worker-1 ListRefunds",
		"every-reply-lost +5.1s worker-1 attempt 0: TimeoutError()", // wait_for's own deadline
		"every-reply-lost +5.1s worker-1 sleeps 1h0m0s",
		"every-reply-lost +5.1s worker-1 CreateRefund #1 -> TimeoutError: the caller's context ended", // the task cancelled
		"every-reply-lost +1h0m5.1s worker-1 CreateRefund #2",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no trace line starting %q in:\n%s", want, all)
		}
	}
}

// TestPythonLoadDiagnostics: what keeps Python code from loading is a
// report with status error whose message names the line, never an error of
// the grader.
func TestPythonLoadDiagnostics(t *testing.T) {
	needPython(t)
	for _, tc := range []struct{ name, source, want string }{
		{"syntax error", "async def refund_money(request_id):\n    return (\n", "line 2:12: SyntaxError: '(' was never closed"},
		{"no entry", "async def refund(request_id):\n    return 'done'\n", "the code defines no refund_money: want async def refund_money(request_id: str) -> Outcome"},
		{"not async", "def refund_money(request_id):\n    return 'done'\n", "line 1:0: refund_money is not an async def"},
		{"two parameters", "async def refund_money(request_id, attempt):\n    return 'done'\n", "line 1:0: refund_money does not take 1 argument(s)"},
		{"raises on import", "import refundkit\n\nLIMIT = 1 / 0\n", "line 3:0: loading the code raised ZeroDivisionError: division by zero"},
		{"imports what is not there", "import requests\n", "line 1:0: loading the code raised ModuleNotFoundError: No module named 'requests'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := gradePython(t, tc.source, faultsim.Options{FirstSeed: 1})
			if rep.Status != faultsim.StatusError || !strings.Contains(rep.Message, tc.want) {
				t.Fatalf("status %s, message %q; want error containing %q", rep.Status, rep.Message, tc.want)
			}
		})
	}
}

// TestPythonCodeThatEndsItsProcess: code that ends its own process, or
// raises SystemExit, is a call that panicked or failed, shown as such, and
// the grade goes on with a fresh process for the runs after it.
func TestPythonCodeThatEndsItsProcess(t *testing.T) {
	needPython(t)
	var scs []faultsim.Scenario
	for _, sc := range refund.Scenarios(refund.Builtin()) {
		if n := sc.Plan().Name; n == "success-on-retry" || n == "two-concurrent" {
			scs = append(scs, sc)
		}
	}
	for _, tc := range []struct{ name, exit, ended, text string }{
		{"os._exit", "os._exit(3)", "panicked", "the Python process of worker-1 ended before its call returned"},
		{"sys.exit", "sys.exit(3)", "returned", "SystemExit: 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "import os, sys\nimport refundkit\n\nasync def refund_money(request_id):\n    await refundkit.get_record(request_id)\n    " + tc.exit + "\n"
			rep, err := faultsim.GradeSource(context.Background(), []faultsim.Runtime{pyRuntime}, refund.Kit{}, scs, "refund.py", src, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
			if err != nil {
				t.Fatal(err)
			}
			w := rep.Wire(1)
			if len(w.Scenarios) != 2 {
				t.Fatalf("%d scenarios graded: %s", len(w.Scenarios), w.Message)
			}
			for _, sc := range w.Scenarios {
				iv := sc.Invocations[0]
				if sc.Status != "fail" || iv.Ended != tc.ended || !strings.Contains(iv.Panic+iv.Error, tc.text) {
					t.Errorf("%s: %s, its first call %+v; want it failed, the call %s with %q", sc.Name, sc.Status, iv, tc.ended, tc.text)
				}
			}
		})
	}
}
