package createclient_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	reference "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/reference"
)

// TestMeasureGradeReference times a whole grade of the reference (every
// scenario, 5 seeds each, crash points included) natively and interpreted,
// side by side in one process. synctest bubbles need a *testing.T, so this
// is a test that measures, not a benchmark; it asserts nothing about speed
// and runs only with CREATECLIENT_MEASURE=1:
//
//	CREATECLIENT_MEASURE=1 go test -run MeasureGradeReference -v ./internal/kits/createclient/
func TestMeasureGradeReference(t *testing.T) {
	if os.Getenv("CREATECLIENT_MEASURE") == "" {
		t.Skip("set CREATECLIENT_MEASURE=1 to time a grade")
	}
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	scs := loadScenarios(t)
	opt := faultsim.Options{Seeds: 5}
	b := faultsimtest.Bubble(t)
	const rounds = 5
	measure := func(grade func() (*faultsim.Report, error)) (time.Duration, int) {
		var best time.Duration
		runs := 0
		for i := 0; i < rounds; i++ {
			start := time.Now()
			rep, err := grade()
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); best == 0 || d < best {
				best = d
			}
			runs = 0
			for _, sc := range rep.Scenarios {
				runs += sc.Runs
			}
		}
		return best, runs
	}
	native, runs := measure(func() (*faultsim.Report, error) {
		return faultsim.Grade(context.Background(), createclient.Kit{}, scs, faultsimtest.Native{Entry: reference.CreatePayment}, b, opt)
	})
	var compiled int
	interpreted, _ := measure(func() (*faultsim.Report, error) {
		prog, diags := interpreted.Interpret(createclient.Kit{}, "client.go", string(src))
		if diags != nil {
			t.Fatal(diags)
		}
		rep, err := faultsim.Grade(context.Background(), createclient.Kit{}, scs, prog, b, opt)
		compiled = prog.Compiled
		return rep, err
	})
	t.Logf("%d scenarios, %d runs: native %v, interpreted %v (%.1fx), %d interpreters compiled; best of %d",
		len(scs), runs, native, interpreted, float64(interpreted)/float64(native), compiled, rounds)
}

// BenchmarkGradeReference grades the reference interpreted, the whole
// suite at the seeds a user's grade explores (grading.DefaultSeeds), as
// the grading child does, and reports the median wall and CPU time of a
// grade, the interpreters it compiled and its runs.
//
//	go test ./internal/kits/createclient -run '^$' -bench GradeReference -benchtime 10x
func BenchmarkGradeReference(b *testing.B) {
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		b.Fatal(err)
	}
	scs := loadScenariosB(b)
	bubble := faultsimtest.BenchBubble(b)
	var took, cpu []time.Duration
	compiled, runs, made := 0, 0, 0
	for b.Loop() {
		faultsimtest.FreshHeap()
		start, cpu0 := time.Now(), faultsim.ProcessCPU()
		prog, diags := interpreted.Interpret(createclient.Kit{}, "client.go", string(src))
		if diags != nil {
			b.Fatal(diags)
		}
		rep, err := interpreted.GradeInterpreted(context.Background(), createclient.Kit{}, scs, prog, bubble, faultsim.Options{Seeds: 20})
		if err != nil || rep.Status != faultsim.StatusPass {
			b.Fatalf("%v %+v", err, rep.Failed())
		}
		took = append(took, time.Since(start))
		cpu = append(cpu, faultsim.ProcessCPU()-cpu0)
		compiled, runs, made = prog.Compiled, 0, 0
		for _, sc := range rep.Scenarios {
			runs += sc.Runs
			made += sc.Runs - sc.Repeated
		}
	}
	slices.Sort(took)
	slices.Sort(cpu)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "cpu-median-ms")
	b.ReportMetric(float64(compiled), "interpreters")
	b.ReportMetric(float64(runs), "runs")
	// made: the runs the grade made; the rest repeated a twin's schedule
	// (faultsim's twins.go), whose report is the same.
	b.ReportMetric(float64(made), "runs-made")
}

func loadScenariosB(b *testing.B) []faultsim.Scenario {
	path := problemDir + "/scenarios.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	list, err := createclient.ParseScenarios(path, data)
	if err != nil {
		b.Fatal(err)
	}
	return createclient.Scenarios(list)
}

const nativeDriver = `package main

import (
	"context"
	"fmt"
	"os"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/bubble"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/kits/createclient/%s/client"
)

func main() {
	data, err := os.ReadFile(%q)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bubble.InProcess(func(b faultsim.Bubble) {
		scs, err := createclient.Kit{}.ParseScenarios("scenarios.yaml", data)
		if err == nil {
			var rep *faultsim.Report
			rep, err = faultsim.Grade(context.Background(), createclient.Kit{}, scs, faultsimtest.Native{Entry: client.CreatePayment}, b, faultsim.Options{Seeds: 20})
			if err == nil {
				fmt.Fprintf(os.Stderr, "native: %%s %%d\n", rep.Status, len(rep.Scenarios))
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	})
}
`

// BenchmarkKitVersusGoBuild compares, in one run, grading the reference
// interpreted (as BenchmarkGradeReference does) against the compile-and-
// run route of the Go playground and Judge0: a native driver, generated
// into a temporary directory inside the module, that imports the
// submission compiled by `go build` and grades it natively through the
// same engine and scenarios. Each go-build iteration changes the
// submission (a new declaration) so the build really compiles and links
// it, as a new submission would; the standard library and the module's
// packages stay in the build cache. Both routes run one after the other
// in each iteration, so they meet the same neighbours on a shared machine.
//
// Besides wall times it compares CPU time (x-gobuild-cpu-median): the
// grade's, this process's, against the go command's with the compiler and
// linker it waited for and the driver's. On a loaded machine the wall
// ratio favours the route that runs more threads at once (the go command
// compiles and links in parallel, a grade runs on at most 4 lanes), while
// CPU time is what each route costs whatever the neighbours do.
//
// Where a grade's CPU goes (profile of BenchmarkGradeReference, 40
// grades, after the trace's lazy formatting and the engine's twins): 38%
// inside yaegi (each call of an interpreted function allocates a
// reflect.Value per local variable; each call into the harness goes
// through reflect.Value.Call; every key character is one call of the
// math/rand stand-in), the engine 21% (scheduler handoffs, stacks, loads),
// the runtime's goroutine switches and allocation 13%, the kit's world and
// invariants 12%, fmt 4%. Graded natively in one process, the suite costs
// about a third of it. Every run draws a key, so no run repeats a twin's
// (faultsim's twins.go): create-client makes all its runs. Measured side
// by side and not landed: a patched yaegi allocating a frame's locals as
// one struct (6 to 8% less CPU, not worth carrying a copy of yaegi's
// interpreter), a third lane on two cores, more scenarios in flight than
// lanes, and no stack growth up front (each within noise or worse).
// Landed: method calls made plain function calls before interpreting
// (gointerp's directMethodCalls; BenchmarkDirectMethodCalls), 0.93x.
//
//	go test ./internal/kits/createclient -run '^$' -bench KitVersusGoBuild -benchtime 8x
func BenchmarkKitVersusGoBuild(b *testing.B) {
	if _, err := exec.LookPath("go"); err != nil {
		b.Skip("no go tool")
	}
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		b.Fatal(err)
	}
	scenariosFile, err := filepath.Abs(problemDir + "/scenarios.yaml")
	if err != nil {
		b.Fatal(err)
	}
	dir, err := os.MkdirTemp(".", "nativebench")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Base(dir)
	if err := os.MkdirAll(filepath.Join(dir, "client"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(fmt.Sprintf(nativeDriver, name, scenariosFile)), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "driver")
	scs := loadScenariosB(b)
	bubble := faultsimtest.BenchBubble(b)
	var route faultsimtest.GoBuildRoute
	i := 0
	for b.Loop() {
		faultsimtest.FreshHeap()
		faults0 := faultsimtest.ProcessFaults()
		start, cpu0 := time.Now(), faultsim.ProcessCPU()
		prog, diags := interpreted.Interpret(createclient.Kit{}, "client.go", string(src))
		if diags != nil {
			b.Fatal(diags)
		}
		rep, err := interpreted.GradeInterpreted(context.Background(), createclient.Kit{}, scs, prog, bubble, faultsim.Options{Seeds: 20})
		if err != nil || rep.Status != faultsim.StatusPass {
			b.Fatalf("%v %+v", err, rep.Failed())
		}
		route.Graded = append(route.Graded, time.Since(start))
		route.GradedCPU = append(route.GradedCPU, faultsim.ProcessCPU()-cpu0)
		route.GradedFaults = append(route.GradedFaults, faultsimtest.ProcessFaults()-faults0)

		i++
		// A new declaration, not a comment: a comment leaves the compiled
		// package byte-identical, so the go command would reuse the
		// cached link and the route would look cheaper than a real new
		// submission, which always relinks.
		changed := string(src) + fmt.Sprintf("\nvar submissionStamp = %d\n", i)
		if err := os.WriteFile(filepath.Join(dir, "client", "client.go"), []byte(changed), 0o644); err != nil {
			b.Fatal(err)
		}
		start = time.Now()
		// The native program links no interpreter (nor yaegi's symbol
		// tables): the native route's packages do not import it.
		build := exec.Command("go", "build", "-o", bin, "./"+name)
		if out, err := build.CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
		route.Build = append(route.Build, time.Since(start))
		run := exec.Command(bin)
		out, err := run.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "native: pass") {
			b.Fatalf("native run: %v\n%s", err, out)
		}
		route.Routed = append(route.Routed, time.Since(start))
		route.RoutedCPU = append(route.RoutedCPU, faultsimtest.CommandCPU(build)+faultsimtest.CommandCPU(run))
	}
	route.Report(b)
}

// stateVariants are the reference rewritten into the forms of package
// state that issue 9 found realistic correct solutions use (those of
// internal/kits/refund's state-* corpus files), each still correct and acting
// as the reference does, and the reference padded to 5,000 lines with a read-only table
// it consults: for BenchmarkGradePackageState.
func stateVariants(b testing.TB, ref string) []struct{ name, src string } {
	edit := func(name, src string, pairs ...string) struct{ name, src string } {
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(src, pairs[i]) {
				b.Fatalf("variant %s: the reference has no %q", name, pairs[i])
			}
			src = strings.Replace(src, pairs[i], pairs[i+1], 1)
		}
		return struct{ name, src string }{name, src}
	}
	const imports = "import (\n\t\"context\"\n"
	const keyDraw = "hex[rand.Intn(len(hex))]"
	const keyFunc = "func newKey() string {\n"
	const retry = "case s == 408 || s == 429:"
	const backoff = "backoff := time.Second"
	const found = "func (c *creator) found(ctx context.Context, id string, err error) (createapi.Status, error) {\n"
	var pad strings.Builder
	pad.WriteString("\n// notes explains a finish in the log.\nvar notes = map[string]string{\n")
	for k := strings.Count(ref, "\n"); k < 5000-3; k++ {
		fmt.Fprintf(&pad, "\t\"note-%05d\": \"note %d\",\n", k, k)
	}
	pad.WriteString("}\n")
	const finish = "func (c *creator) finish(ctx context.Context, s createapi.Status, paymentID, note string) (createapi.Status, error) {\n"
	return []struct{ name, src string }{
		{"reference", ref},
		edit("state-rand-source", ref, keyDraw, "hex[rng.Intn(len(hex))]",
			keyFunc, "var rng = rand.New(rand.NewSource(rand.Int63()))\n\n"+keyFunc),
		edit("state-mutex", ref, imports, imports+"\t\"sync\"\n",
			keyFunc, "var keyMu sync.Mutex\n\n"+keyFunc+"\tkeyMu.Lock()\n\tdefer keyMu.Unlock()\n"),
		edit("state-func-value", ref, keyDraw, "hex[pick(len(hex))]",
			keyFunc, "var pick = rand.Intn\n\n"+keyFunc),
		edit("state-table", ref, retry, "case retryable[s]:",
			keyFunc, "var retryable = map[int]bool{408: true, 429: true}\n\n"+keyFunc),
		edit("state-blank", ref, keyFunc, "var _ = fmt.Sprint\n\n"+keyFunc),
		edit("state-wrapped-sentinel", ref, keyFunc, "var errGaveUp = fmt.Errorf(\"client: %w\", errors.ErrUnsupported)\n\n"+keyFunc,
			found, found+"\tif errors.Is(err, errGaveUp) {\n\t\treturn createapi.Pending, errGaveUp\n\t}\n"),
		edit("state-init", ref, backoff, "backoff := backoffs[0]",
			keyFunc, "var backoffs []time.Duration\n\nfunc init() {\n\tfor d := time.Second; d < time.Minute; d *= 2 {\n\t\tbackoffs = append(backoffs, d)\n\t}\n}\n\n"+keyFunc),
		edit("state-slice-table", ref, backoff, "backoff := firstBackoff[0]",
			keyFunc, "var firstBackoff = []time.Duration{time.Second}\n\n"+keyFunc),
		edit("padded-5000", ref+pad.String(), finish, finish+"\t_ = notes[note]\n"),
	}
}

// BenchmarkGradePackageState grades the stateless reference, each variant
// of it with package state, and the reference padded to 5,000 lines (see
// stateVariants), as BenchmarkGradeReference grades. Each iteration grades
// every one of them once, so all meet the same neighbours on a shared
// machine, and the benchmark reports each one's median CPU time of a grade
// (<name>-cpu-ms) and its ratio to the reference's (<name>-x). Issue 9's
// targets: every state-* within 1.5x, the padded file within 5x.
//
//	go test ./internal/kits/createclient -run '^$' -bench GradePackageState -benchtime 5x
func BenchmarkGradePackageState(b *testing.B) {
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		b.Fatal(err)
	}
	scs := loadScenariosB(b)
	bubble := faultsimtest.BenchBubble(b)
	// As refund's benchmark does, the reference once more making every
	// run (see faultsim's twins.go): the package state's own cost.
	variants := append(stateVariants(b, string(src)), struct{ name, src string }{"reference-every-run", string(src)})
	every := len(variants) - 1
	cpu := faultsimtest.SideBySide(b, len(variants), func(i int) {
		gradeSourceB(b, variants[i].src, scs, bubble, faultsim.Options{Seeds: 20, EveryRun: i == every})
	})
	names := make([]string, len(variants))
	for i, v := range variants {
		names[i] = v.name
	}
	faultsimtest.ReportVariants(b, names, cpu)
	faultsimtest.ReportVariantsAgainst(b, names, cpu, every, "-x-every-run")
}

// BenchmarkDirectMethodCalls grades the reference with gointerp's
// directMethodCalls rewrite and without it (gointerp.SlowMethodCalls),
// alternately in each iteration so both meet the same neighbours, and
// reports each one's median CPU time of a grade and direct-x, the ratio
// of the rewritten grade's to the one as written.
//
//	go test ./internal/kits/createclient -run '^$' -bench DirectMethodCalls -benchtime 10x
func BenchmarkDirectMethodCalls(b *testing.B) {
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		b.Fatal(err)
	}
	scs := loadScenariosB(b)
	bubble := faultsimtest.BenchBubble(b)
	defer gointerp.SlowMethodCalls.Store(false)
	cpu := faultsimtest.SideBySide(b, 2, func(i int) {
		gointerp.SlowMethodCalls.Store(i == 0)
		gradeSourceB(b, string(src), scs, bubble, faultsim.Options{Seeds: 20})
	})
	faultsimtest.ReportVariants(b, []string{"as-written", "direct"}, cpu)
}

// gradeSourceB grades source interpreted and fails the benchmark unless it
// passes.
func gradeSourceB(b *testing.B, source string, scs []faultsim.Scenario, bubble faultsim.Bubble, opt faultsim.Options) {
	prog, diags := interpreted.Interpret(createclient.Kit{}, "client.go", source)
	if diags != nil {
		b.Fatal(diags)
	}
	rep, err := interpreted.GradeInterpreted(context.Background(), createclient.Kit{}, scs, prog, bubble, opt)
	if err != nil || rep.Status != faultsim.StatusPass {
		b.Fatalf("%v %+v", err, rep.Failed())
	}
}
