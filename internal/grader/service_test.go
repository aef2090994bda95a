package grader

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// testChildEnv makes this test binary, re-executed by a Service under
// test, act as the grading child (TestGradingChild). The server binary
// does the same through ChildCommand and ServeChild; the protocol and the
// sandbox are the same, only the bubble comes from a test.
const testChildEnv = "FAULTLINE_GRADER_TEST_CHILD"

// TestGradingChild is the grading child when the service tests re-execute
// this binary; run directly, it skips.
func TestGradingChild(t *testing.T) {
	if os.Getenv(testChildEnv) != "1" {
		t.Skip("the grading child of the service tests; nothing to do on its own")
	}
	job, err := readJob(os.Stdin)
	if err != nil {
		t.Fatal(err)
	}
	debug.SetMaxStack(childMaxStack)
	serveJob(context.Background(), job, BubbleFromT(t), os.NewFile(sandbox.ResultFD, "results"))
}

// newTestService returns a Service whose children are this test binary
// running TestGradingChild, with limits tightened so hostile code is
// stopped in seconds.
//
// Under -race the child is instead the server binary built without the
// race detector (a -race child needs far more memory and time than the
// limits allow), so the same tests still run the real sandbox there.
func newTestService(t testing.TB, limits sandbox.Limits, size, queue int) *Service {
	t.Helper()
	runner := &sandbox.Runner{
		Args:   []string{"-test.run=^TestGradingChild$", "-test.count=1"},
		Env:    []string{testChildEnv + "=1"},
		Limits: limits,
	}
	if serviceTestRace {
		runner = NewChildRunner(limits, nil)
		runner.Executable = plainServerBinary(t)
	}
	return NewService(sandbox.NewPool(runner, size, queue), nil)
}

// plainServer is the server binary built once per test process without
// -race, removed by TestMain.
var plainServer struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func plainServerBinary(t testing.TB) string {
	t.Helper()
	plainServer.once.Do(func() {
		plainServer.dir, plainServer.err = os.MkdirTemp("", "faultline-grader-test-")
		if plainServer.err != nil {
			return
		}
		plainServer.path = filepath.Join(plainServer.dir, "server")
		out, err := exec.Command("go", "build", "-o", plainServer.path, "github.com/faultline-dev/faultline/cmd/server").CombinedOutput()
		if err != nil {
			plainServer.err = fmt.Errorf("go build ./cmd/server: %v\n%s", err, out)
		}
	})
	if plainServer.err != nil {
		t.Fatal(plainServer.err)
	}
	return plainServer.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if plainServer.dir != "" {
		os.RemoveAll(plainServer.dir)
	}
	os.Exit(code)
}

// hostileLimits stop a busy loop after 4 s of CPU; the wall limit is far
// above that so a loaded machine still shows the CPU limit.
var hostileLimits = sandbox.Limits{WallTime: 30 * time.Second, CPUTime: 4 * time.Second}

// TestServiceRefusesHugeSource checks an oversized file is refused before
// any child starts (the pool here has no runner that could start one).
func TestServiceRefusesHugeSource(t *testing.T) {
	svc := NewService(sandbox.NewPool(&sandbox.Runner{Executable: "/nonexistent"}, 1, 0), nil)
	report, err := svc.Grade(context.Background(), Job{Problem: "async-refund", Source: strings.Repeat("x", MaxSourceBytes+1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Status != StatusError || !strings.Contains(report.Message, "source too large") || report.ExitCode() != 2 {
		t.Errorf("report %q %q exit %d", report.Status, report.Message, report.ExitCode())
	}
}
