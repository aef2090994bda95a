package refund_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
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
