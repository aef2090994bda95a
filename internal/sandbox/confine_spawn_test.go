package sandbox

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSpawnPolicy: a child whose policy has Spawn (a Python job's grading
// child, whose Python zygote forks its lanes) may make processes, still
// executes nothing its policy does not name, and a filter it stacks
// (StackedFilter, as a lane does before submitted code runs) takes new
// processes away again.
func TestSpawnPolicy(t *testing.T) {
	have := Confinement()
	if !have.Seccomp {
		t.Skip("no seccomp here: " + have.SeccompErr)
	}
	const eperm = "operation not permitted"
	for _, tt := range []struct {
		mode, want string
	}{
		{"fork", "ok"},
		{"clone-process", "ok"},
		{"threads", "ok"},
		{"execve", eperm},
		{"socket-inet", eperm},
		{"stacked-fork", eperm},
		{"stacked-clone", eperm},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			r := testRunner(tt.mode, Limits{WallTime: 10 * time.Second})
			r.Confine = &ConfinePolicy{Scratch: t.TempDir(), Spawn: true}
			var lines []string
			var mu sync.Mutex
			out, err := r.Run(context.Background(), []byte("{}"), collect(&lines, &mu))
			if err != nil {
				t.Fatal(err)
			}
			if !out.OK() || len(lines) != 1 || !strings.HasSuffix(lines[0], ": "+tt.want) {
				t.Errorf("ended %s with %q (stderr %.300s); want %q", out.Describe(), lines, out.Stderr, tt.mode+": "+tt.want)
			}
		})
	}
}

// TestStackedFilter: the filter is whole sock_filter records.
func TestStackedFilter(t *testing.T) {
	for _, spawn := range []bool{false, true} {
		prog, err := StackedFilter(false, spawn, "kill")
		if err != nil || len(prog) == 0 || len(prog)%8 != 0 {
			t.Errorf("StackedFilter(spawn %v) = %d bytes, %v", spawn, len(prog), err)
		}
	}
}

// TestPoolKindRunner: a job of a kind with a Runner of its own runs in a
// child of that Runner; other jobs in the pool's own.
func TestPoolKindRunner(t *testing.T) {
	pool := NewPool(testRunner("echo", Limits{}), 1, 2)
	pool.SetKindRunner("other", testRunner("env", Limits{}))
	for _, tt := range []struct {
		kind, want string
	}{{"", `{"echo":"job"}`}, {"other", "cwd="}, {"unknown", `{"echo":"job"}`}} {
		ticket, err := pool.Admit("k")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		var mu sync.Mutex
		ctx := context.Background()
		if tt.kind != "" {
			ctx = WithKind(ctx, tt.kind)
		}
		out, err := ticket.Run(ctx, []byte("job"), collect(&lines, &mu))
		if err != nil || !out.OK() {
			t.Fatalf("%q: %v %v", tt.kind, out, err)
		}
		if !strings.Contains(strings.Join(lines, "\n"), tt.want) {
			t.Errorf("kind %q: results %q, want %q", tt.kind, lines, tt.want)
		}
	}
}
