package faultsim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
)

// TestInterpreterFailureIsNotTheCandidates: a call that panics inside the
// interpreter (here: a method promoted from an interface embedded in a
// type declared inside a function, which yaegi v0.16.1 cannot call) is
// the grader's failure. The report gives no verdict, says so, and lists
// no defect as unfixed.
func TestInterpreterFailureIsNotTheCandidates(t *testing.T) {
	src := `package tally

import (
	"context"

	"faultline.test/tally"
)

func Bump(ctx context.Context, c tally.Counter) error {
	type getter interface{ Get(ctx context.Context) int }
	type box struct {
		getter
		n int
	}
	b := box{getter: c}
	for {
		v := b.Get(ctx)
		if c.CompareAndSet(ctx, v, v+1) {
			return nil
		}
	}
}
`
	rep, err := interpreted.GradeSource(context.Background(), toyKit{}, []faultsim.Scenario{toyScenario{name: "one", workers: 2}},
		"bump.go", src, faultsimtest.Bubble(t), faultsim.Options{Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != faultsim.StatusError || !strings.Contains(rep.Message, "the interpreter failed") || !strings.Contains(rep.Message, "not a defect of your code") {
		t.Errorf("got %s %q, want an error saying the interpreter failed", rep.Status, rep.Message)
	}
	if len(rep.Diagnostics) == 0 || rep.Diagnostics[0].Line != 17 {
		t.Errorf("diagnostics %v, want one at line 17", rep.Diagnostics)
	}
	for _, d := range rep.Defects {
		if !d.Fixed {
			t.Errorf("defect %s listed as not fixed", d.ID)
		}
	}
}
