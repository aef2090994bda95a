package faultsim_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
)

func grade(t *testing.T, prog faultsim.Program, sc toyScenario, opt faultsim.Options) *faultsim.Report {
	t.Helper()
	rep, err := faultsim.Grade(context.Background(), toyKit{}, []faultsim.Scenario{sc}, prog, faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func interpretedProgram(t *testing.T, src string) faultsim.Program {
	t.Helper()
	p, diags := interpreted.Interpret(toyKit{}, "bump.go", src)
	if diags != nil {
		t.Fatalf("diagnostics: %v", diags)
	}
	return p
}

func TestSchedulesFindTheLostUpdate(t *testing.T) {
	two := toyScenario{name: "two", workers: 2}
	tests := []struct {
		name   string
		prog   faultsim.Program
		failed bool
	}{
		{"racy native", faultsimtest.Native{Entry: racyNative}, true},
		{"cas native", faultsimtest.Native{Entry: casNative}, false},
		{"racy interpreted", interpretedProgram(t, racySource), true},
		{"cas interpreted", interpretedProgram(t, casSource), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := grade(t, tt.prog, two, faultsim.Options{Seeds: 30})
			if got := rep.Status == faultsim.StatusFail; got != tt.failed {
				t.Fatalf("failed = %v, want %v: %+v", got, tt.failed, rep.Failed())
			}
			if rep.Scenarios[0].Runs != 30 {
				t.Errorf("runs = %d, want 30", rep.Scenarios[0].Runs)
			}
		})
	}
}

func TestSameSeedSameRun(t *testing.T) {
	sc := toyScenario{name: "three", workers: 3}
	var reports []string
	for _, seed := range []int64{7, 7, 8} {
		rep := grade(t, faultsimtest.Native{Entry: casNative}, sc, faultsim.Options{FirstSeed: seed})
		b, _ := json.Marshal(rep.Scenarios[0].Trace)
		reports = append(reports, string(b))
	}
	if reports[0] != reports[1] {
		t.Errorf("seed 7 twice gave two traces:\n%s\n%s", reports[0], reports[1])
	}
	// Different seeds differ for some pair; 7 and 8 were seen to.
	if reports[0] == reports[2] {
		t.Errorf("seeds 7 and 8 gave the same trace: the seed does not reach the scheduler")
	}
}

func TestNativeAndInterpretedAgree(t *testing.T) {
	sc := toyScenario{name: "crash", workers: 2, crash: true, restart: time.Second}
	for _, pair := range []struct {
		native any
		src    string
	}{{racyNative, racySource}, {casNative, casSource}} {
		n := grade(t, faultsimtest.Native{Entry: pair.native}, sc, faultsim.Options{Seeds: 20})
		i := grade(t, interpretedProgram(t, pair.src), sc, faultsim.Options{Seeds: 20})
		nb, _ := json.MarshalIndent(n, "", " ")
		ib, _ := json.MarshalIndent(i, "", " ")
		if string(nb) != string(ib) {
			t.Errorf("native and interpreted reports differ:\nnative: %s\ninterpreted: %s", nb, ib)
		}
	}
}

func TestCrashPointsAndRestart(t *testing.T) {
	sc := toyScenario{name: "crash", workers: 1, crash: true, restart: time.Second}
	rep := grade(t, faultsimtest.Native{Entry: racyNative}, sc, faultsim.Options{})
	// One plain run, then before and after each of the two calls.
	if got := rep.Scenarios[0].Runs; got != 5 {
		t.Fatalf("runs = %d, want 5", got)
	}
	if rep.Status != faultsim.StatusPass {
		t.Fatalf("a restarted racy bump alone loses nothing, yet: %+v", rep.Failed())
	}
	// A kit that objects to every restart shows the first crash run: its
	// worker died before its first call and ran again.
	rep, err := faultsim.Grade(context.Background(), restartObjector{}, []faultsim.Scenario{sc}, faultsimtest.Native{Entry: racyNative},
		faultsimtest.Bubble(t), faultsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Scenarios[0]
	if got.Run != "seed 0, worker-1 crashes before its call 1" {
		t.Fatalf("shown run = %q", got.Run)
	}
	if len(got.Calls) != 2 || got.Calls[0].Ended != faultsim.EndCrashed || !got.Calls[1].Restarted || got.Calls[1].Ended != faultsim.EndReturned {
		t.Fatalf("calls = %+v, want a crashed call and its restart", got.Calls)
	}
	trace, _ := json.Marshal(got.Trace)
	for _, want := range []string{"dies before Get:", "worker-1 restarts", "writes 1"} {
		if !strings.Contains(string(trace), want) {
			t.Errorf("trace lacks %q: %s", want, trace)
		}
	}
}

type restartObjector struct{ toyKit }

func (restartObjector) Invariants() []faultsim.Invariant {
	return []faultsim.Invariant{{ID: "no-restart", Title: "never restarts", Check: func(r *faultsim.Run) []string {
		for _, iv := range r.Calls {
			if iv.Restarted {
				return []string{"restarted"}
			}
		}
		return nil
	}}}
}

func TestLimitsStopARun(t *testing.T) {
	tests := []struct {
		name, src, evidence string
	}{
		{"sleeps forever", `package tally
import ("context"; "time"; "faultline.test/tally")
func Bump(ctx context.Context, c tally.Counter) error { for { c.Get(ctx); time.Sleep(time.Second) } }
`, "virtual time ran out"},
		{"spins", `package tally
import ("context"; "faultline.test/tally")
func Bump(ctx context.Context, c tally.Counter) error { for { c.Get(ctx) } }
`, "thousands of times"},
		{"asleep when time runs out", `package tally
import ("context"; "time"; "faultline.test/tally")
func Bump(ctx context.Context, c tally.Counter) error { c.Get(ctx); time.Sleep(time.Hour); c.Get(ctx); return nil }
`, "virtual time ran out"},
		{"waits on a goroutine asleep when time runs out", `package tally
import ("context"; "time"; "faultline.test/tally")
func Bump(ctx context.Context, c tally.Counter) error {
	done := make(chan bool)
	go func() { time.Sleep(time.Hour); c.Get(ctx); done <- true }()
	<-done
	return nil
}
`, "virtual time ran out"},
		{"blocks forever", `package tally
import ("context"; "faultline.test/tally")
func Bump(ctx context.Context, c tally.Counter) error { c.Get(ctx); select {} }
`, "blocked forever"},
		{"panics", `package tally
import ("context"; "faultline.test/tally")
func Bump(ctx context.Context, c tally.Counter) error { var m map[string]int; m["x"] = 1; return nil }
`, "panicked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := grade(t, interpretedProgram(t, tt.src), toyScenario{name: "one", workers: 1}, faultsim.Options{Seeds: 3})
			inv := rep.Scenarios[0].Invariants[0]
			if inv.ID != faultsim.Returns || inv.Held {
				t.Fatalf("want %s failed, got %+v", faultsim.Returns, inv)
			}
			if !strings.Contains(strings.Join(inv.Evidence, " "), tt.evidence) {
				t.Errorf("evidence %q does not say %q", inv.Evidence, tt.evidence)
			}
		})
	}
}

func TestSourceThatDoesNotLoad(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"syntax", "package tally\nfunc Bump(\n", "line 2"},
		{"signature", "package tally\nfunc Bump() error { return nil }\n", "wrong signature"},
		{"import", "package tally\nimport \"os\"\nfunc Bump() { os.Exit(1) }\n", `import "os" is not allowed`},
		// Loads that fail only when run: each lane's load meets the failure
		// (see TestSecondLaneCompiledBesideTrial), and it is reported once.
		{"initialiser panics", "package tally\nimport (\"context\"; \"faultline.test/tally\")\nvar n = func() int { panic(\"boom\") }()\nfunc Bump(ctx context.Context, c tally.Counter) error { n++; return nil }\n", "panicked in package initialisation: boom"},
		{"init blocks", "package tally\nimport (\"context\"; \"faultline.test/tally\")\nfunc init() { select {} }\nfunc Bump(ctx context.Context, c tally.Counter) error { return nil }\n", "blocked forever"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := interpreted.GradeSource(context.Background(), toyKit{}, []faultsim.Scenario{toyScenario{name: "one", workers: 1}},
				"bump.go", tt.src, faultsimtest.Bubble(t), faultsim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != faultsim.StatusError || !strings.Contains(rep.Message, tt.want) {
				t.Errorf("got %s %q, want error saying %q", rep.Status, rep.Message, tt.want)
			}
		})
	}
}

// TestSecondLaneCompiledBesideTrial: with two lanes, the second lane's
// interpreter is compiled while the trial load compiles the first, so a
// grade of a single run holds two; on one lane, or for a source too long
// to be worth a second compile (which may keep the grade to one lane), it
// holds only the trial's.
func TestSecondLaneCompiledBesideTrial(t *testing.T) {
	long := casSource + strings.Repeat("// padding\n", 1000)
	tests := []struct {
		name     string
		src      string
		lanes    int
		compiled int
	}{
		{"two lanes", casSource, 2, 2},
		{"one lane", casSource, 1, 1},
		{"long source", long, 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, diags := interpreted.Interpret(toyKit{}, "bump.go", tt.src)
			if diags != nil {
				t.Fatal(diags)
			}
			rep, err := interpreted.GradeInterpreted(context.Background(), toyKit{}, []faultsim.Scenario{toyScenario{name: "one", workers: 1}},
				p, faultsimtest.Bubble(t), faultsim.Options{Seeds: 1, Lanes: tt.lanes})
			if err != nil || rep.Status != faultsim.StatusPass {
				t.Fatalf("%v %+v", err, rep)
			}
			if p.Compiled != tt.compiled {
				t.Errorf("%d interpreters compiled, want %d", p.Compiled, tt.compiled)
			}
		})
	}
}

func TestUnknownCheckIsAnError(t *testing.T) {
	sc := checked{toyScenario{name: "x", workers: 1}}
	_, err := faultsim.Grade(context.Background(), toyKit{}, []faultsim.Scenario{sc}, faultsimtest.Native{Entry: casNative}, faultsimtest.Bubble(t), faultsim.Options{})
	if err == nil || !strings.Contains(err.Error(), `"no-such"`) {
		t.Fatalf("err = %v, want one naming the unknown check", err)
	}
}

type checked struct{ toyScenario }

func (c checked) Plan() faultsim.Plan {
	p := c.toyScenario.Plan()
	p.Checks = []string{"no-such"}
	return p
}

// TestNoFamilyNames keeps the engine free of any problem family's words:
// they belong in a kit.
func TestNoFamilyNames(t *testing.T) {
	banned := regexp.MustCompile(`(?i)refund|payment|charge|vendor|stripe|idempoten|createclient|refundkit`)
	// The engine and its routes, helpers and subpackages alike.
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) < 20 {
		t.Fatalf("found %d files: %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := banned.FindString(line); m != "" {
				t.Errorf("%s:%d names %q: a kit's word in the engine", f, i+1, m)
			}
		}
	}
}

// TestCrashedWorkersKeepTheirInterpreter: a crash unwinds its goroutine
// like a panic, so a stateless submission's interpreter serves later runs
// rather than being compiled again for every crash point. On one lane a
// run uses at most three at once (two workers and a restart).
func TestCrashedWorkersKeepTheirInterpreter(t *testing.T) {
	p, diags := interpreted.Interpret(toyKit{}, "bump.go", casSource)
	if diags != nil {
		t.Fatal(diags)
	}
	sc := toyScenario{name: "crash", workers: 2, crash: true, restart: time.Second}
	rep := grade(t, p, sc, faultsim.Options{Seeds: 3, Lanes: 1})
	if rep.Scenarios[0].Runs < 5 {
		t.Fatalf("runs = %d: the scenario explores no crash points", rep.Scenarios[0].Runs)
	}
	if p.Compiled > 3 {
		t.Errorf("%d interpreters compiled for %d runs, want at most 3", p.Compiled, rep.Scenarios[0].Runs)
	}
}

// TestLanesDoNotChangeTheReport: scenarios and runs side by side give
// the report, and the progress, of one at a time.
func TestLanesDoNotChangeTheReport(t *testing.T) {
	var scs []faultsim.Scenario
	for i := 1; i <= 5; i++ {
		scs = append(scs, toyScenario{name: fmt.Sprintf("s%d", i), workers: 1 + i%3, crash: i%2 == 1, restart: time.Second})
	}
	grade := func(lanes int) (string, []string) {
		var order []string
		rep, err := faultsim.Grade(context.Background(), toyKit{}, scs, interpretedProgram(t, racySource), faultsimtest.Bubble(t),
			faultsim.Options{Seeds: 8, Lanes: lanes, Progress: func(s faultsim.ScenarioResult) { order = append(order, s.Name) }})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(rep, "", " ")
		return string(b), order
	}
	one, oneOrder := grade(1)
	if want := []string{"s1", "s2", "s3", "s4", "s5"}; !slices.Equal(oneOrder, want) {
		t.Fatalf("progress on one lane = %v, want %v", oneOrder, want)
	}
	for _, lanes := range []int{2, 4} {
		got, order := grade(lanes)
		if got != one {
			t.Errorf("%d lanes: report differs from one lane's:\n%s\none lane:\n%s", lanes, got, one)
		}
		if !slices.Equal(order, oneOrder) {
			t.Errorf("%d lanes: progress %v, want %v", lanes, order, oneOrder)
		}
	}
}

// TestWorkersShareAnInterpreterNotTheirDraws: the workers of a run share
// one interpreter when the submission keeps no package state, yet each
// draws from its own source, seeded as its own process's would be (the
// run's seed times 1000 plus its place), and prints to its own output:
// from its call, from a goroutine it starts and from a timer's callback
// alike. With package state each worker has an interpreter, and so a
// package, of its own.
func TestWorkersShareAnInterpreterNotTheirDraws(t *testing.T) {
	const src = `package tally

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
	return nil
}
`
	// A process initialises its package before its call: first is its
	// first draw, and calls counts from zero in every run.
	const counted = `
var calls int
var first = rand.Int63()

func Count(ctx context.Context) { calls++; fmt.Println("calls", calls, "first", first) }
`
	tests := []struct {
		name, src string
		state     bool
		compiled  int
	}{
		{"stateless", src, false, 1},
		{"package state", strings.Replace(src, "\treturn nil", "\tCount(ctx)\n\treturn nil", 1) + counted, true, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, diags := interpreted.Interpret(toyKit{}, "bump.go", tt.src)
			if diags != nil {
				t.Fatal(diags)
			}
			// The second grade runs on the interpreters the first left.
			for round := 1; round <= 2; round++ {
				rep := grade(t, p, toyScenario{name: "three", workers: 3}, faultsim.Options{FirstSeed: 4, Seeds: 3, Lanes: 1})
				calls := rep.Scenarios[0].Calls
				if len(calls) != 3 {
					t.Fatalf("calls = %+v", calls)
				}
				for i, c := range calls {
					r := rand.New(rand.NewSource(4*1000 + int64(i) + 1)) // calls count from 1
					var first int64
					if tt.state {
						first = r.Int63()
					}
					want := fmt.Sprintf("call %d\ngoroutine %d\ntimer %d\n", r.Int63(), r.Int63(), r.Int63())
					if tt.state {
						want += fmt.Sprintf("calls 1 first %d\n", first)
					}
					if c.Output != want {
						t.Errorf("round %d: %s printed %q, want %q", round, c.Worker, c.Output, want)
					}
				}
			}
			if p.Compiled != tt.compiled {
				t.Errorf("%d interpreters compiled for six runs of three workers on one lane, want %d", p.Compiled, tt.compiled)
			}
		})
	}
}

// TestLaterWorkersTakeAnEndedCallsInterpreter: with package state each
// worker has an interpreter of its own, but once a worker's call is over
// (returned, or its process died) a worker that starts later in the same
// run takes it, its package initialised afresh as a new process's would
// be, unless the code starts goroutines of its own, which may run on
// after the call.
func TestLaterWorkersTakeAnEndedCallsInterpreter(t *testing.T) {
	const src = `package tally

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
	calls++
	fmt.Println("calls", calls, "first", first)
	time.Sleep(time.Second)
	c.Set(ctx, c.Get(ctx)+1)
	return nil
}
`
	withGo := strings.Replace(src, "\ttime.Sleep(time.Second)\n", "\tdone := make(chan bool)\n\tgo func() { done <- true }()\n\t<-done\n\ttime.Sleep(time.Second)\n", 1)
	tests := []struct {
		name     string
		src      string
		sc       toyScenario
		compiled int
	}{
		// Each call is over a second after it started, before the next.
		{"one after another", src, toyScenario{name: "staggered", workers: 3, stagger: 5 * time.Second}, 1},
		{"at once", src, toyScenario{name: "together", workers: 3}, 3},
		{"with a goroutine", withGo, toyScenario{name: "staggered", workers: 3, stagger: 5 * time.Second}, 3},
		// The restart of a worker whose process died takes its interpreter.
		{"restart", src, toyScenario{name: "crash", workers: 1, crash: true, restart: time.Second}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, diags := interpreted.Interpret(toyKit{}, "bump.go", tt.src)
			if diags != nil {
				t.Fatal(diags)
			}
			rep := grade(t, p, tt.sc, faultsim.Options{FirstSeed: 4, Seeds: 2, Lanes: 1})
			if tt.sc.crash && rep.Scenarios[0].Runs < 3 {
				t.Fatalf("%d runs: no crash point was explored", rep.Scenarios[0].Runs)
			}
			for _, c := range rep.Scenarios[0].Calls {
				if !strings.HasPrefix(c.Output, "calls 1 first ") {
					t.Errorf("%s printed %q: its package state was not its own", c.Worker, c.Output)
				}
			}
			if p.Compiled != tt.compiled {
				t.Errorf("%d interpreters compiled, want %d", p.Compiled, tt.compiled)
			}
		})
	}
}

// sleepKit replaces time.Sleep as a kit may: a stand-in that finds the
// calling worker and writes the sleep to the run's trace.
type sleepKit struct{ toyKit }

func (sleepKit) Harness() faultsim.Harness {
	h := toyKit{}.Harness()
	h.Symbols["time/time"] = map[string]reflect.Value{"Sleep": reflect.ValueOf(func(d time.Duration) {
		w := faultsim.CallingWorker()
		w.Trace().Add(w.ID, "sleep", "sleeps %s", d)
		time.Sleep(d)
	})}
	return h
}

// TestAKitsStandInKnowsTheCallingWorker: with one interpreter for the
// run, a kit's time.Sleep still tells whose sleep it is, in the call and
// in a goroutine the call starts; the engine's own time.AfterFunc stays.
func TestAKitsStandInKnowsTheCallingWorker(t *testing.T) {
	const src = `package tally

import (
	"context"
	"time"

	"faultline.test/tally"
)

func Bump(ctx context.Context, c tally.Counter) error {
	time.Sleep(time.Second)
	done := make(chan bool)
	go func() { time.Sleep(2 * time.Second); done <- true }()
	<-done
	time.AfterFunc(time.Second, func() { time.Sleep(3 * time.Second); done <- true })
	<-done
	return nil
}
`
	p, diags := interpreted.Interpret(sleepKit{}, "bump.go", src)
	if diags != nil {
		t.Fatal(diags)
	}
	if faultsim.CallingWorker() != nil {
		t.Fatal("the test's own goroutine has a worker")
	}
	rep, err := faultsim.Grade(context.Background(), sleepKit{}, []faultsim.Scenario{toyScenario{name: "two", workers: 2}}, p, faultsimtest.Bubble(t), faultsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, e := range rep.Scenarios[0].Trace {
		if e.Kind == "sleep" {
			got[e.Actor] = append(got[e.Actor], e.Text)
		}
	}
	want := []string{"sleeps 1s", "sleeps 2s", "sleeps 3s"}
	for _, w := range []string{"worker-1", "worker-2"} {
		if !slices.Equal(got[w], want) {
			t.Errorf("%s's sleeps = %v, want %v", w, got[w], want)
		}
	}
	if p.Compiled != 1 {
		t.Errorf("%d interpreters compiled, want 1", p.Compiled)
	}
}
