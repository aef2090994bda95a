package faultsim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

func TestLangOf(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"refund.go", faultsim.LangGo},
		{"refund.py", faultsim.LangPython},
		{"REFUND.PY", faultsim.LangPython},
		{"", faultsim.LangGo},
		{"refund.py.go", faultsim.LangGo},
		{"notes.pyc", faultsim.LangGo},
	} {
		if got := faultsim.LangOf(tc.file); got != tc.want {
			t.Errorf("LangOf(%q) = %q, want %q", tc.file, got, tc.want)
		}
	}
}

// refusingRuntime runs Python by refusing every source with a diagnostic.
type refusingRuntime struct{ msg string }

func (refusingRuntime) Lang() string { return faultsim.LangPython }

func (r refusingRuntime) Check(faultsim.Kit, string, string) (faultsim.Program, []gradewire.Diagnostic) {
	return nil, []gradewire.Diagnostic{{Line: 3, Message: r.msg}}
}

// TestGradeSourcePicksTheRuntime: the file's extension picks the runtime;
// a language no runtime runs, and a source the runtime refuses, are
// reports with status error, never errors of the grader; Go through the
// interpreted runtime grades as it always did.
func TestGradeSourcePicksTheRuntime(t *testing.T) {
	rts := []faultsim.Runtime{interpreted.Runtime{}, refusingRuntime{msg: "no Python here"}}
	scs := []faultsim.Scenario{toyScenario{name: "one", workers: 1}}
	for _, tc := range []struct {
		name, file, source string
		rts                []faultsim.Runtime
		status, message    string
	}{
		{"go", "count.go", casSource, rts, faultsim.StatusPass, ""},
		{"python refused", "count.py", "anything", rts, faultsim.StatusError, "line 3:0: no Python here"},
		{"python without a runtime", "count.py", "anything", rts[:1], faultsim.StatusError, "python submissions cannot be graded here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := faultsim.GradeSource(context.Background(), tc.rts, toyKit{}, scs, tc.file, tc.source, faultsimtest.Bubble(t), faultsim.Options{Seeds: 2})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != tc.status || !strings.Contains(rep.Message, tc.message) {
				t.Fatalf("status %s, message %q; want %s containing %q", rep.Status, rep.Message, tc.status, tc.message)
			}
		})
	}
}

// placedRuntime keeps its grades on a CPU it is told.
type placedRuntime struct {
	refusingRuntime
	cpu int
}

func (p placedRuntime) OnCPU(cpu int) faultsim.Runtime { p.cpu = cpu; return p }

// TestPlacedOnTellsThePlacedRuntimes: a job's CPU reaches the runtimes
// that keep a grade on one, and no other; no CPU changes nothing.
func TestPlacedOnTellsThePlacedRuntimes(t *testing.T) {
	rts := []faultsim.Runtime{refusingRuntime{msg: "go"}, placedRuntime{cpu: -1}}
	if got := faultsim.PlacedOn(rts, nil); got[1].(placedRuntime).cpu != -1 {
		t.Errorf("no CPU: the runtime was told %d", got[1].(placedRuntime).cpu)
	}
	cpu := 3
	got := faultsim.PlacedOn(rts, &cpu)
	if got[1].(placedRuntime).cpu != 3 || got[0] != rts[0] {
		t.Errorf("CPU 3: got %+v", got)
	}
	if rts[1].(placedRuntime).cpu != -1 {
		t.Error("PlacedOn changed the caller's runtimes")
	}
}
