package pyrun

import (
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/pyenv"
)

// namedKit is a kit that has only a name: Check reads no more of it
// before it refuses.
type namedKit struct{ faultsim.Kit }

func (namedKit) Name() string { return "tally" }

// TestCheckRefusesWhatCannotRun: a kit with no Python API, and a machine
// where Python may not run, are diagnostics for the user, with no process
// started.
func TestCheckRefusesWhatCannotRun(t *testing.T) {
	bound := map[string]Binding{"tally": {Module: "tallykit", Entry: "count"}}
	for _, tc := range []struct {
		name       string
		bindings   map[string]Binding
		unconfined string
		want       string
	}{
		{"no Python API", nil, "1", "pyrun: the tally problems cannot be answered in Python yet"},
		{"not confined", bound, "", "Python grading is unavailable here: the Python process would not be confined by the kernel"},
		{"no interpreter", bound, "1", "the Python runtime did not start: pyrun: start /nonexistent/no-such-python"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(pyenv.UnconfinedEnv, tc.unconfined)
			rt := Runtime{Bindings: tc.bindings, Python: "/nonexistent/no-such-python"}
			prog, diags := rt.Check(namedKit{}, "count.py", "async def count(): pass\n")
			if prog != nil || len(diags) != 1 || !strings.Contains(diags[0].Message, tc.want) {
				t.Fatalf("Check = %v, %v; want one diagnostic containing %q", prog, diags, tc.want)
			}
		})
	}
}

func TestRaisedText(t *testing.T) {
	for _, tc := range []struct {
		r    Raised
		want string
	}{
		{Raised{Type: "KeyError", Message: "'r1'", Line: 9}, "KeyError: 'r1' (line 9)"},
		{Raised{Type: "CancelledError"}, "CancelledError"},
		{Raised{Type: "RuntimeError", Message: "database connection reset"}, "RuntimeError: database connection reset"},
	} {
		if got := tc.r.Text(); got != tc.want {
			t.Errorf("Text() = %q, want %q", got, tc.want)
		}
	}
}
