package faultsim_test

// A toy family for the engine's own tests: workers bump a shared counter
// through a harness whose Get and Set are separate steps, so a read-modify-
// write loses updates under some schedules and a compare-and-set does not.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// Counter is the toy harness the submissions import as tallyPath.
type Counter interface {
	Get(ctx context.Context) int
	Set(ctx context.Context, v int)
	CompareAndSet(ctx context.Context, old, v int) bool
}

const tallyPath = "faultline.test/tally"

type toyKit struct{}

func (toyKit) Name() string { return "tally" }

func (toyKit) Harness() faultsim.Harness {
	return faultsim.Harness{Path: tallyPath, Symbols: map[string]map[string]reflect.Value{
		tallyPath + "/tally": {"Counter": reflect.ValueOf((*Counter)(nil))},
	}}
}

func (toyKit) Entry() faultsim.EntrySpec {
	return faultsim.EntrySpec{Name: "Bump", Params: []string{"context.Context", tallyPath + ".Counter"}, Results: []string{"error"},
		Want: "func Bump(ctx context.Context, c tally.Counter) error"}
}

func (toyKit) Invariants() []faultsim.Invariant {
	return []faultsim.Invariant{{
		ID: "no-lost-update", Title: "Every bump counts", Why: "a lost update is a lost order", Defect: "read-modify-write without a compare",
		Check: func(r *faultsim.Run) []string {
			w := toyWorldOf(r.World)
			returned := 0
			for _, iv := range r.Calls {
				if iv.Ended == faultsim.EndReturned && iv.Result == "nil" {
					returned++
				}
			}
			if w.value < returned {
				return []string{fmt.Sprintf("%d calls returned nil but the counter is %d", returned, w.value)}
			}
			return nil
		},
	}}
}

type toyScenario struct {
	name    string
	workers int
	crash   bool
	restart time.Duration
	budget  time.Duration
	stagger time.Duration // worker i's call starts at (i-1)*stagger
}

func (s toyScenario) Plan() faultsim.Plan {
	p := faultsim.Plan{Name: s.name, Budget: s.budget, Restart: s.restart}
	if p.Budget == 0 {
		p.Budget = time.Minute
	}
	for i := 1; i <= s.workers; i++ {
		p.Calls = append(p.Calls, faultsim.Call{Worker: fmt.Sprintf("worker-%d", i), Subject: "counter", At: time.Duration(i-1) * s.stagger})
	}
	if s.crash {
		p.Crash = []string{"worker-1"}
	}
	return p
}

// ParseScenarios reads one scenario per line: "name workers".
func (toyKit) ParseScenarios(file string, data []byte) ([]faultsim.Scenario, error) {
	var out []faultsim.Scenario
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var sc toyScenario
		if _, err := fmt.Sscanf(line, "%s %d", &sc.name, &sc.workers); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, i+1, err)
		}
		out = append(out, sc)
	}
	return out, nil
}

func (toyKit) NewWorld(sc faultsim.Scenario, r *faultsim.Run) (faultsim.World, error) {
	return &toyWorld{run: r}, nil
}

func toyWorldOf(w faultsim.World) *toyWorld {
	if e, ok := w.(*eventWorld); ok {
		return &e.toyWorld
	}
	return w.(*toyWorld)
}

type toyWorld struct {
	run   *faultsim.Run
	value int
}

func (w *toyWorld) Invoke(ctx context.Context, wk *faultsim.Worker, entry any, c faultsim.Call) string {
	f := entry.(func(context.Context, Counter) error)
	if err := f(ctx, &toyCounter{w, wk}); err != nil {
		return "error: " + err.Error()
	}
	return "nil"
}

func (w *toyWorld) EndState() []string { return []string{fmt.Sprintf("counter = %d", w.value)} }

type toyCounter struct {
	w  *toyWorld
	wk *faultsim.Worker
}

func (c *toyCounter) Get(ctx context.Context) int {
	c.wk.Enter("Get")
	v := c.w.value
	c.wk.Trace().Add(c.wk.ID, "read", "reads %d", v)
	c.wk.Leave()
	return v
}

func (c *toyCounter) Set(ctx context.Context, v int) {
	c.wk.Enter("Set")
	c.w.value = v
	c.wk.Trace().Add(c.wk.ID, "write", "writes %d", v)
	c.wk.Leave()
}

func (c *toyCounter) CompareAndSet(ctx context.Context, old, v int) bool {
	c.wk.Enter("CompareAndSet")
	ok := c.w.value == old
	if ok {
		c.w.value = v
	}
	c.wk.Trace().Add(c.wk.ID, "write", "compare %d and set %d: %v", old, v, ok)
	c.wk.Leave()
	return ok
}

// The toy submissions, as source for the interpreter and as native
// functions for the differential test.

const racySource = `package tally

import (
	"context"

	"faultline.test/tally"
)

func Bump(ctx context.Context, c tally.Counter) error {
	v := c.Get(ctx)
	c.Set(ctx, v+1)
	return nil
}
`

func racyNative(ctx context.Context, c Counter) error {
	v := c.Get(ctx)
	c.Set(ctx, v+1)
	return nil
}

const casSource = `package tally

import (
	"context"
	"time"

	"faultline.test/tally"
)

func Bump(ctx context.Context, c tally.Counter) error {
	for {
		v := c.Get(ctx)
		if c.CompareAndSet(ctx, v, v+1) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}
`

func casNative(ctx context.Context, c Counter) error {
	for {
		v := c.Get(ctx)
		if c.CompareAndSet(ctx, v, v+1) {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}
