package grading

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestReusedChildGradesAsAFreshOne grades both kits' files one after
// another in one reused grading child of the server binary, for one key,
// and checks every report is the one a fresh child gives, that the child
// was reused (clean after each job), and that another key got a child of
// its own.
func TestReusedChildGradesAsAFreshOne(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades in child processes")
	}
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []gradewire.Job
	var names [][]string
	for _, slug := range []string{"idempotent-create-client-code", "async-refund"} {
		p, ok := cat.Problem(slug)
		if !ok || p.Code == nil {
			t.Fatalf("no problem %s", slug)
		}
		for _, src := range []string{p.Code.Reference, p.Code.Starter} {
			job := KitJob(p.Code, src, 1, nil)
			job.Seeds = 2
			jobs = append(jobs, job)
			names = append(names, p.Code.ScenarioNames)
		}
	}

	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	service := func(reuse bool) (*Service, *sandbox.Pool) {
		runner := NewChildRunner(sandbox.Limits{}, log)
		runner.Executable = bin
		pool := sandbox.NewPool(runner, 1, 4)
		if reuse {
			pool.Reuse(sandbox.Reuse{})
		}
		t.Cleanup(func() { pool.Close() })
		return New(pool, log), pool
	}
	grade := func(svc *Service, pool *sandbox.Pool, key string, i int) string {
		t.Helper()
		ticket, err := pool.Admit(key)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := svc.GradeKit(context.Background(), ticket, jobs[i], names[i], nil)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(rep)
		return string(data)
	}

	fresh, freshPool := service(false)
	var want []string
	for i := range jobs {
		want = append(want, grade(fresh, freshPool, "", i))
	}
	logs.Reset()
	reused, pool := service(true)
	for round := range 2 {
		for i := range jobs {
			if got := grade(reused, pool, "someone", i); got != want[i] {
				t.Errorf("round %d, job %d (%s): the reused child's report differs from a fresh child's:\n%s\nwant\n%s",
					round, i, jobs[i].Kit, got, want[i])
			}
		}
	}
	if n := strings.Count(logs.String(), `"reused":`); n != 2*len(jobs) {
		t.Fatalf("%d grades logged, want %d:\n%s", n, 2*len(jobs), logs.String())
	}
	if n := strings.Count(logs.String(), `"reused":0`); n != 1 {
		t.Errorf("%d grades ran in a child that ran no job before, want only the first:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "child retired") {
		t.Errorf("a child was retired after a clean grade:\n%s", logs.String())
	}
	logs.Reset()
	grade(reused, pool, "someone else", 0)
	if !strings.Contains(logs.String(), `"reused":0`) {
		t.Errorf("another key's grade ran in the first key's child:\n%s", logs.String())
	}
	if n := pool.Parked(); n != 1 {
		t.Errorf("%d children kept; want 1 (size 1: the newer key's)", n)
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "child kept") {
			t.Log(line)
		}
	}

	// Code that leaves a goroutine blocked forever, or changes a host
	// variable yaegi lends it (a kit's error, a standard one, time.Local):
	// its child runs no other job, and the next grade is a fresh child's.
	refund := jobs[2]
	sig := "func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {\n"
	if !strings.Contains(refund.Source, sig) {
		t.Fatal("the refund reference no longer declares RefundMoney this way: update the test")
	}
	for _, tc := range []struct{ name, top string }{
		{"leaks a goroutine", "\tgo func() { select {} }()\n"},
		{"swaps two of the kit's errors", "\trefundkit.ErrServer, refundkit.ErrRateLimited = refundkit.ErrRateLimited, refundkit.ErrServer\n"},
		{"clears a standard error", "\tcontext.Canceled = nil\n"},
		{"moves the local time zone", "\ttime.Local = time.UTC\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := refund
			bad.Source = strings.Replace(refund.Source, sig, sig+tc.top, 1)
			logs.Reset()
			for _, job := range []gradewire.Job{refund, bad} {
				ticket, err := pool.Admit("leaker")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := reused.GradeKit(context.Background(), ticket, job, names[2], nil); err != nil {
					t.Fatal(err)
				}
			}
			for _, line := range strings.Split(logs.String(), "\n") {
				if strings.Contains(line, "child retired") {
					t.Log(line)
				}
			}
			logs.Reset()
			if got := grade(reused, pool, "leaker", 2); got != want[2] {
				t.Errorf("after code that %s: the report differs from a fresh child's:\n%s\nwant\n%s", tc.name, got, want[2])
			}
			if !strings.Contains(logs.String(), `"reused":0`) {
				t.Errorf("the child that ran code that %s graded again:\n%s", tc.name, logs.String())
			}
		})
	}
}
