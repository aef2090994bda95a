package faultsim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/faultsim/native"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/grading"
)

// countedSource has package state, prints, draws in its call, in a
// goroutine and in a timer, and sleeps: what a native copy must do as the
// interpreted route does.
const countedSource = `package tally

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"faultline.test/tally"
)

var calls int
var first = rand.Int63()

func Bump(ctx context.Context, c tally.Counter) error {
	fmt.Println("call", rand.Int63())
	done := make(chan bool)
	go func() { fmt.Println("goroutine", rand.Int63()); done <- true }()
	<-done
	time.AfterFunc(time.Second, func() { fmt.Println("timer", rand.Int63()); done <- true })
	<-done
	time.Sleep(time.Second)
	calls++
	fmt.Println("calls", calls, "first", first)
	c.Set(ctx, c.Get(ctx)+calls)
	return nil
}
`

// countedCopy is countedSource as NativeSource makes it, by hand: package
// state of its own, the stand-ins it calls, and its reset.
type countedCopy struct {
	calls     int
	first     int64
	int63     func() int64
	println   func(a ...any) (int, error)
	afterFunc func(time.Duration, func()) *time.Timer
	sleep     func(time.Duration)
}

func (c *countedCopy) native() native.NativeCopy {
	// Until NativeCopies binds them, the stand-ins are the standard
	// functions, as a shim's variables start.
	c.int63, c.println, c.afterFunc, c.sleep = rand.Int63, fmt.Println, time.AfterFunc, time.Sleep
	return native.NativeCopy{Entry: c.bump, Reset: c.reset, StandIns: map[string]any{
		"math/rand.Int63": &c.int63, "fmt.Println": &c.println, "time.AfterFunc": &c.afterFunc,
	}}
}

func (c *countedCopy) reset() { c.calls, c.first = 0, c.int63() }

func (c *countedCopy) bump(ctx context.Context, counter Counter) error {
	c.println("call", c.int63())
	done := make(chan bool)
	go func() { c.println("goroutine", c.int63()); done <- true }()
	<-done
	c.afterFunc(time.Second, func() { c.println("timer", c.int63()); done <- true })
	<-done
	c.sleep(time.Second)
	c.calls++
	c.println("calls", c.calls, "first", c.first)
	counter.Set(ctx, counter.Get(ctx)+c.calls)
	return nil
}

func nativeCopies(k faultsim.Kit, n int) (*native.NativeCopies, []*countedCopy) {
	p := &native.NativeCopies{Kit: k}
	var copies []*countedCopy
	for range n {
		c := &countedCopy{}
		copies = append(copies, c)
		p.Copies = append(p.Copies, c.native())
	}
	return p, copies
}

func reportJSON(t *testing.T, rep *faultsim.Report) string {
	t.Helper()
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNativeCopiesGradeAsInterpreted: copies with package state, the
// engine's stand-ins bound to the worker holding each copy, grade exactly
// as the interpreter does, whole report for whole report, and again on the
// copies a first grade left (each load resets its copy's state).
func TestNativeCopiesGradeAsInterpreted(t *testing.T) {
	sc := toyScenario{name: "three", workers: 3, crash: true, restart: time.Second}
	opt := faultsim.Options{FirstSeed: 4, Seeds: 3, Lanes: 2}
	want := reportJSON(t, grade(t, interpretedProgram(t, countedSource), sc, opt))
	// Two lanes of three workers and a restart.
	p, _ := nativeCopies(toyKit{}, 8)
	for round := 1; round <= 2; round++ {
		if got := reportJSON(t, grade(t, p, sc, opt)); got != want {
			t.Fatalf("round %d: the native copies' report differs from the interpreted one:\nnative:\n%s\ninterpreted:\n%s", round, got, want)
		}
	}
	// Copies that keep their package state from run to run, as reused
	// interpreters without a reset would: the report must show it.
	stale, _ := nativeCopies(toyKit{}, 8)
	for i := range stale.Copies {
		stale.Copies[i].Reset = nil
	}
	if reportJSON(t, grade(t, stale, sc, opt)) == want {
		t.Error("copies that are never reset graded as fresh processes: the comparison above cannot fail")
	}
}

// steppingSleepKit replaces time.Sleep as sleepKit does, and passes the
// gate once the sleep is over, so workers waking at one instant write
// the trace in the scheduler's order, not the runtime's.
type steppingSleepKit struct{ toyKit }

func (steppingSleepKit) Harness() faultsim.Harness {
	h := toyKit{}.Harness()
	h.Symbols["time/time"] = map[string]reflect.Value{"Sleep": reflect.ValueOf(func(d time.Duration) {
		w := faultsim.CallingWorker()
		time.Sleep(d)
		w.Step()
		w.Trace().Add(w.ID, "sleep", "slept %s", d)
	})}
	return h
}

// TestNativeCopiesUseTheKitsStandIns: a kit's replacement of a standard
// function (a time.Sleep that finds the calling worker) is what a copy
// calls too.
func TestNativeCopiesUseTheKitsStandIns(t *testing.T) {
	sc := toyScenario{name: "two", workers: 2}
	k := steppingSleepKit{}
	gradeWith := func(prog faultsim.Program) string {
		rep, err := faultsim.Grade(context.Background(), k, []faultsim.Scenario{sc}, prog, faultsimtest.Bubble(t), faultsim.Options{Seeds: 2})
		if err != nil {
			t.Fatal(err)
		}
		return reportJSON(t, rep)
	}
	want := gradeWith(interpretedFor(t, k, countedSource))
	p, copies := nativeCopies(k, 2)
	for i, c := range copies {
		p.Copies[i].StandIns["time.Sleep"] = &c.sleep
	}
	if got := gradeWith(p); got != want {
		t.Errorf("native:\n%s\ninterpreted:\n%s", got, want)
	}
	if !strings.Contains(want, "slept 1s") {
		t.Error("the kit's time.Sleep left no line in the trace: the test shows nothing")
	}
}

func interpretedFor(t *testing.T, k faultsim.Kit, src string) faultsim.Program {
	t.Helper()
	p, diags := interpreted.Interpret(k, "bump.go", src)
	if diags != nil {
		t.Fatalf("diagnostics: %v", diags)
	}
	return p
}

// TestNativeCopiesRefuse: too few copies, a stand-in the interpreted
// route has no replacement for, or one of another type, is a call that
// did not load, saying why.
func TestNativeCopiesRefuse(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		ptr       any
		want      string
	}{
		{"too few copies", "", nil, "all 1 native copies are in use"},
		{"not replaced", "strings.ToUpper", new(func(string) string), "stands in for strings.ToUpper, which the interpreted route does not replace"},
		{"another type", "math/rand.Int63", new(func() int), "want *func() int64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := nativeCopies(toyKit{}, 1)
			if tc.key != "" {
				p.Copies[0].StandIns[tc.key] = tc.ptr
			}
			rep := grade(t, p, toyScenario{name: "two", workers: 2}, faultsim.Options{Lanes: 1})
			if b := reportJSON(t, rep); rep.Status != faultsim.StatusFail || !strings.Contains(b, tc.want) {
				t.Errorf("status %s, want fail, with %q in\n%s", rep.Status, tc.want, b)
			}
		})
	}
}

// TestNativeSource: the native copy of a file points the names the
// interpreted route replaces at stand-ins (through the file's own import
// names), keeps a replaced type's name for embedded fields unless the
// file declares it, keeps every import used, and declares the copy.
func TestNativeSource(t *testing.T) {
	const src = `package tally

import (
	"context"
	"fmt"
	r "math/rand"
	"sync"

	"faultline.test/tally"
)

type guarded struct {
	sync.Mutex
	n int
}

var g guarded

func Bump(ctx context.Context, c tally.Counter) error {
	g.Lock()
	defer g.Unlock()
	g.n += r.Intn(3)
	fmt.Println(g.n)
	c.Set(ctx, g.n)
	return nil
}
`
	f, err := interpreted.NativeSource(toyKit{}, "bump.go", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"faultlineNative_math_rand_Intn(3)", "faultlineNative_fmt_Println(g.n)", "\tMutex\n", "func faultlineResetPackageState()", "var _ = r."} {
		if !strings.Contains(f.Source, want) {
			t.Errorf("the copy's source has no %q:\n%s", want, f.Source)
		}
	}
	for _, want := range []string{"type Mutex = faultlineFaultsim.Mutex", `"math/rand.Intn": &faultlineNative_math_rand_Intn`, `"fmt.Println": &faultlineNative_fmt_Println`,
		"Entry: Bump, Reset: faultlineResetPackageState", "package tally"} {
		if !strings.Contains(f.Shim, want) {
			t.Errorf("the shim has no %q:\n%s", want, f.Shim)
		}
	}

	own := strings.Replace(src, "var g guarded", "var g guarded\n\ntype Mutex struct{}", 1)
	if f, err = interpreted.NativeSource(toyKit{}, "bump.go", own); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Shim, "type faultlineNative_sync_Mutex = faultlineFaultsim.Mutex") || !strings.Contains(f.Source, "\tfaultlineNative_sync_Mutex\n") {
		t.Errorf("a file with its own Mutex: the alias must take another name:\n%s\n%s", f.Source, f.Shim)
	}

	stateless := "package tally\n\nimport (\n\t\"context\"\n\n\t\"faultline.test/tally\"\n)\n\nfunc Bump(ctx context.Context, c tally.Counter) error { return nil }\n"
	if f, err = interpreted.NativeSource(toyKit{}, "bump.go", stateless); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Shim, "Reset: nil") {
		t.Errorf("a file without package state has a reset:\n%s", f.Shim)
	}

	for _, bad := range []struct{ src, want string }{
		{strings.Replace(src, "\t\"fmt\"\n", "\t. \"fmt\"\n", 1), "dot import"},
		{src + "\nvar faultlineNativeX int\n", "reserves"},
		{"package tally\n\nfunc (", "bump.go"},
	} {
		if _, err := interpreted.NativeSource(toyKit{}, "bump.go", bad.src); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("got %v, want an error containing %q", err, bad.want)
		}
	}
}

// statelessSource is countedSource without package state: one copy
// serves every worker (NativeCopies.Shared), as one interpreter does.
const statelessSource = `package tally

import (
	"context"
	"fmt"
	"math/rand"
	"time"

	"faultline.test/tally"
)

func Bump(ctx context.Context, c tally.Counter) error {
	fmt.Println("call", rand.Int63())
	done := make(chan bool)
	go func() { fmt.Println("goroutine", rand.Int63()); done <- true }()
	<-done
	time.AfterFunc(time.Second, func() { fmt.Println("timer", rand.Int63()); done <- true })
	<-done
	time.Sleep(time.Second)
	c.Set(ctx, c.Get(ctx)+1)
	return nil
}
`

// statelessCopy is statelessSource as NativeSource makes it, by hand.
type statelessCopy struct {
	int63     func() int64
	println   func(a ...any) (int, error)
	afterFunc func(time.Duration, func()) *time.Timer
}

func (c *statelessCopy) bump(ctx context.Context, counter Counter) error {
	c.println("call", c.int63())
	done := make(chan bool)
	go func() { c.println("goroutine", c.int63()); done <- true }()
	<-done
	c.afterFunc(time.Second, func() { c.println("timer", c.int63()); done <- true })
	<-done
	time.Sleep(time.Second)
	counter.Set(ctx, counter.Get(ctx)+1)
	return nil
}

// TestSharedNativeCopyGradesAsInterpreted: one copy of a file without
// package state, shared by every worker of both lanes, the stand-ins
// finding each worker by its goroutine's label, grades exactly as the
// interpreter does.
func TestSharedNativeCopyGradesAsInterpreted(t *testing.T) {
	sc := toyScenario{name: "three", workers: 3, crash: true, restart: time.Second}
	opt := faultsim.Options{FirstSeed: 4, Seeds: 3, Lanes: 2}
	want := reportJSON(t, grade(t, interpretedProgram(t, statelessSource), sc, opt))
	c := &statelessCopy{int63: rand.Int63, println: fmt.Println, afterFunc: time.AfterFunc}
	p := &native.NativeCopies{Kit: toyKit{}, Shared: true, Copies: []native.NativeCopy{{Entry: c.bump, StandIns: map[string]any{
		"math/rand.Int63": &c.int63, "fmt.Println": &c.println, "time.AfterFunc": &c.afterFunc,
	}}}}
	if got := reportJSON(t, grade(t, p, sc, opt)); got != want {
		t.Fatalf("the shared copy's report differs from the interpreted one:\nnative:\n%s\ninterpreted:\n%s", got, want)
	}
	if !strings.Contains(want, "timer") || !strings.Contains(want, "goroutine") {
		t.Fatal("the report shows no output of the goroutine or the timer: the test shows nothing")
	}
	// Two copies, or one with package state, are refused.
	bad := &native.NativeCopies{Kit: toyKit{}, Shared: true, Copies: []native.NativeCopy{{Entry: c.bump, Reset: func() {}}}}
	if b := reportJSON(t, grade(t, bad, sc, opt)); !strings.Contains(b, "shared native copies need exactly one copy") {
		t.Errorf("a shared copy with package state graded:\n%s", b)
	}
}

// TestNativeImportsAreTheInterpretersAllowlist: the parent checks a
// native program's imports against its own copy of the allowlist (it
// links no interpreter); the copy must be the interpreter's.
func TestNativeImportsAreTheInterpretersAllowlist(t *testing.T) {
	if got, want := grading.NativeImports(), gointerp.AllowedStdlib; !slices.Equal(got, want) {
		t.Errorf("internal/grading's nativeImports = %q; gointerp.AllowedStdlib = %q: make them equal", got, want)
	}
}
