package gradewire

import (
	"fmt"
	"slices"
	"strings"
)

// The native referee: a grade's verdict from the interpreter is checked by
// building the same submission natively with the go tool and grading it
// with the same scenarios and seed (internal/grading's referee). The
// interpreter can be wrong silently, and a candidate must never be blamed
// for it.

// Referee outcomes (Referee.Outcome).
const (
	// RefereeConfirmed: the native build graded the code to the same
	// verdict; the report is the interpreter's.
	RefereeConfirmed = "confirmed"
	// RefereeOverruled: the native verdict differs; the report is the
	// native one, and the interpreter's verdict is kept in Interpreted.
	RefereeOverruled = "overruled"
	// RefereeUnconfirmed: the referee could not run (no Go toolchain on
	// the server, or the native build failed where the interpreter ran);
	// the report is the interpreter's, unchecked.
	RefereeUnconfirmed = "unconfirmed"
)

// Referee is what the native referee said of a report's verdict.
type Referee struct {
	Outcome string `json:"outcome"`
	// Interpreted and Native are the two verdicts in words (Verdict);
	// Native is empty when the referee could not run.
	Interpreted string `json:"interpreted"`
	Native      string `json:"native,omitempty"`
	// Message says what happened, for the candidate.
	Message string `json:"message"`
	// BuildMS and RunMS are the referee's real durations (timings, as
	// Report.Timings are): the go build and the native grade.
	BuildMS float64 `json:"build_ms,omitempty"`
	RunMS   float64 `json:"run_ms,omitempty"`
}

// NativeProgram is the native copy of a submission as the grading child
// writes it for the referee (Job.Native): the package's files, which the
// parent builds Copies times, each as a package of its own, beside a
// driver that grades through them (internal/faultsim/native's
// ServeNative).
type NativeProgram struct {
	// KitImport is the kit's import path; KitValue the kit as an
	// expression in its package's name ("refund.Kit{}").
	KitImport string `json:"kit_import"`
	KitValue  string `json:"kit_value"`
	// Files are the package's files by name: the submission, rewritten
	// as interpreted.NativeSource writes it, and the shim beside it.
	Files map[string]string `json:"files"`
	// Copies is how many copies a grade on one lane loads at once at most.
	Copies int `json:"copies"`
	// Refused, when set, says why the submission has no native copy (an
	// import outside the allowlist, a form the copy cannot make): Files is
	// then empty.
	Refused string `json:"refused,omitempty"`
}

// Verdict is the report's verdict in words, what the referee compares:
// its status and, for a failure, the scenarios that failed.
func (r *Report) Verdict() string {
	switch r.Status {
	case StatusPass:
		return "passed"
	case StatusFail:
		var failed []string
		for _, sc := range r.Scenarios {
			if sc.Status != StatusPass {
				failed = append(failed, sc.Name)
			}
		}
		slices.Sort(failed)
		return fmt.Sprintf("failed (%d of %d scenarios passed; failed: %s)", r.Summary.ScenariosPassed, r.Summary.ScenariosTotal, strings.Join(failed, ", "))
	}
	msg, _, _ := strings.Cut(r.Message, "\n")
	return "not graded: " + strings.TrimPrefix(msg, "The code could not be graded: ")
}

// SameVerdict reports whether two reports of one submission reach the
// same verdict: the same status, and for a failure the same scenarios
// failed. Two reports that could not grade agree, whatever each says.
func SameVerdict(a, b *Report) bool {
	if a.Status != b.Status {
		return false
	}
	if a.Status != StatusFail {
		return true
	}
	return a.Verdict() == b.Verdict()
}
