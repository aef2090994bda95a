package grading

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestRefereeLeavesPythonAlone: the native referee builds Go; a Python
// grade (File *.py, as the web's language switch sends it) is the Python
// runtime's verdict alone, never marked unconfirmed for want of a native
// program it could not have.
func TestRefereeLeavesPythonAlone(t *testing.T) {
	svc, f, log := refereeService(t)
	if _, why := pyenv.Available(); why != "" {
		t.Skip("Python cannot be graded here: " + why)
	}
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := cat.Problem("async-refund")
	if !ok || p.Code == nil || p.Code.PythonReference == "" {
		t.Fatal("async-refund has no Python reference")
	}
	// refereeService's pool has only Go children: this one has Python's too.
	limits := sandbox.Limits{WallTime: 60 * time.Second}
	goRunner, pyRunner := NewChildRunner(limits, nil), NewPythonChildRunner(limits, nil)
	goRunner.Executable, pyRunner.Executable = f.bin, f.bin
	pool := sandbox.NewPool(goRunner, 1, 4)
	pool.SetKindRunner(KindPython, pyRunner)
	t.Cleanup(func() { pool.Close() })
	py := New(pool, nil)
	py.Referee, py.Disagreements = svc.Referee, log

	job := KitJob(p.Code, p.Code.PythonReference, 1, nil)
	job.File, job.Seeds, job.Problem = "refund.py", 2, p.Slug
	rep, err := py.GradeKit(context.Background(), nil, job, p.Code.ScenarioNames, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status != gradewire.StatusPass {
		t.Errorf("the Python reference: %s: %s", rep.Status, rep.Message)
	}
	if rep.Referee != nil {
		t.Errorf("a Python grade has a referee's word: %+v", rep.Referee)
	}
	if got := log.all(); len(got) != 0 {
		t.Errorf("logged %+v", got)
	}
}
