//go:build !nointerp

package grader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gointerp"
)

// diffSubmission is one program of the differential test.
type diffSubmission struct{ name, src string }

// diffCorpus is every submission the repository holds: the starter, the
// reference, every mutant, and every file of testdata/corpus.
func diffCorpus(t *testing.T) []diffSubmission {
	subs := []diffSubmission{{"starter", readSource(t, starterFile)}, {"reference", readSource(t, referenceFile)}}
	for _, f := range mutantFiles(t) {
		subs = append(subs, diffSubmission{"mutant/" + strings.TrimSuffix(filepath.Base(f), ".patch"), mutantSource(t, f)})
	}
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		subs = append(subs, diffSubmission{filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".go"), readSource(t, f)})
	}
	return subs
}

// TestInterpretedMatchesNative is the differential test of the grader:
// every submission of the corpus is graded through the interpreter and,
// compiled by the go tool, natively (each worker of a run on a copy of its
// own, package state reset per run as the interpreted route resets it,
// and the same seeded random stream, clock and output), and the two
// reports must be identical once timings are removed. A difference is the
// interpreter changing what the Go code means: it needs a rewrite or a
// refusal in internal/sandbox, never an exception here.
func TestInterpretedMatchesNative(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	subs := diffCorpus(t)
	if serviceTestRace || testing.Short() {
		// The race detector makes the interpreter several times slower,
		// and it reorders goroutines of one worker that act at the same
		// virtual instant (goroutine_select's send and its time.After),
		// which the trace then shows in another order. Under it, and with
		// -short, a sample is compared; the whole corpus without.
		var sample []diffSubmission
		for _, s := range subs {
			if s.name == "starter" || s.name == "reference" || strings.HasPrefix(s.name, "correct/state-") {
				sample = append(sample, s)
			}
		}
		subs = sample
	}
	native := gradeNatively(t, subs)
	for _, s := range subs {
		t.Run(s.name, func(t *testing.T) {
			want, ok := native[s.name]
			if !ok {
				t.Fatal("no native report")
			}
			got := sanitizedJSON(t, grade(t, s.src, 1))
			if !bytes.Equal(got, want) {
				t.Errorf("the interpreted report differs from the native one:\n%s", lineDiff(string(want), string(got)))
			}
		})
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for k := 0; (k < len(w) || k < len(g)) && shown < 12; k++ {
		var wl, gl string
		if k < len(w) {
			wl = w[k]
		}
		if k < len(g) {
			gl = g[k]
		}
		if wl != gl {
			shown++
			fmt.Fprintf(&b, "line %d:\n  native:      %s\n  interpreted: %s\n", k+1, strings.TrimSpace(wl), strings.TrimSpace(gl))
		}
	}
	return b.String()
}

// maxInvocationsPerRun is how many native copies a submission needs: one
// per invocation of the busiest run.
func maxInvocationsPerRun() int {
	n := 0
	for _, sc := range Suites[DefaultProblem]() {
		k := 0
		for _, ph := range sc.Phases {
			k += len(ph.Invocations)
		}
		if k > n {
			n = k
		}
	}
	return n
}

// substituted are the names the interpreted route gives its own
// implementations (packagesFor and NewInterpreter), by import path; the
// native copies call the same implementations through NativeSlot.
var substituted = map[string][]string{
	"math/rand": {"Int", "Intn", "Int31", "Int31n", "Int63", "Int63n", "Uint32", "Uint64", "Float32", "Float64", "ExpFloat64", "NormFloat64", "Perm", "Shuffle", "Read", "Seed"},
	"time":      {"Sleep", "After", "Now", "Since", "Until"},
	"sync":      {"Mutex", "RWMutex"},
	"fmt":       {"Print", "Printf", "Println"},
}

// keepImport keeps an import used once its substituted names are gone.
var keepImport = map[string]string{"math/rand": "New", "time": "Duration(0)", "sync": "NewCond", "fmt": "Sprint"}

// nativeSource turns a submission into a native copy's source: package
// state made resettable, and the substituted names pointed at the shim.
func nativeSource(t *testing.T, name, text string) (string, bool) {
	text, resettable, err := gointerp.StateResetText("refund.go", text)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "refund.go", text, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	local := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		n := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			n = imp.Name.Name
		}
		local[n] = path
	}
	type edit struct {
		at, end int
		with    string
	}
	var edits []edit
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || x.Obj != nil {
			return true
		}
		path := local[x.Name]
		for _, s := range substituted[path] {
			if s == sel.Sel.Name {
				edits = append(edits, edit{fset.Position(sel.Pos()).Offset, fset.Position(sel.End()).Offset, shimName(path, s)})
			}
		}
		return true
	})
	sort.Slice(edits, func(a, b int) bool { return edits[a].at > edits[b].at })
	for _, e := range edits {
		text = text[:e.at] + e.with + text[e.end:]
	}
	for n, path := range local {
		if keep, ok := keepImport[path]; ok && n != "_" {
			text += fmt.Sprintf("\nvar _ = %s.%s\n", n, keep)
		}
	}
	return text, resettable
}

func shimName(path, name string) string {
	return "faultlineNative" + strings.ToUpper(path[strings.LastIndex(path, "/")+1:][:1]) + path[strings.LastIndex(path, "/")+2:] + name
}

// nativeShim is the file each native copy gets beside the submission.
const nativeShim = `package %s

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader"
)

var faultlineSlot = grader.NewNativeSlot()

type faultlineNativeSyncMutex = grader.Mutex
type faultlineNativeSyncRWMutex = grader.RWMutex

func FaultlineCopy() grader.NativeCopy {
	return grader.NativeCopy{Entry: RefundMoney, Reset: %s, Slot: faultlineSlot}
}

func faultlineNativeRandInt() (v int) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Int() }); return }
func faultlineNativeRandIntn(n int) (v int) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Intn(n) }); return }
func faultlineNativeRandInt31() (v int32) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Int31() }); return }
func faultlineNativeRandInt31n(n int32) (v int32) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Int31n(n) }); return }
func faultlineNativeRandInt63() (v int64) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Int63() }); return }
func faultlineNativeRandInt63n(n int64) (v int64) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Int63n(n) }); return }
func faultlineNativeRandUint32() (v uint32) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Uint32() }); return }
func faultlineNativeRandUint64() (v uint64) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Uint64() }); return }
func faultlineNativeRandFloat32() (v float32) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Float32() }); return }
func faultlineNativeRandFloat64() (v float64) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Float64() }); return }
func faultlineNativeRandExpFloat64() (v float64) { faultlineSlot.Random(func(r *rand.Rand) { v = r.ExpFloat64() }); return }
func faultlineNativeRandNormFloat64() (v float64) { faultlineSlot.Random(func(r *rand.Rand) { v = r.NormFloat64() }); return }
func faultlineNativeRandPerm(n int) (v []int) { faultlineSlot.Random(func(r *rand.Rand) { v = r.Perm(n) }); return }
func faultlineNativeRandRead(p []byte) (n int, err error) { faultlineSlot.Random(func(r *rand.Rand) { n, _ = r.Read(p) }); return }
func faultlineNativeRandSeed(seed int64) { faultlineSlot.Seed(seed) }
func faultlineNativeRandShuffle(n int, swap func(i, j int)) {
	if n < 0 {
		panic("invalid argument to Shuffle")
	}
	for i := n - 1; i > 0; i-- {
		j := faultlineNativeRandIntn(i + 1)
		swap(i, j)
	}
}

func faultlineNativeTimeSleep(d time.Duration)                { faultlineSlot.Sleep(d) }
func faultlineNativeTimeAfter(d time.Duration) <-chan time.Time { return faultlineSlot.After(d) }
func faultlineNativeTimeNow() time.Time                        { return faultlineSlot.Now() }
func faultlineNativeTimeSince(t time.Time) time.Duration       { return faultlineSlot.Now().Sub(t) }
func faultlineNativeTimeUntil(t time.Time) time.Duration       { return t.Sub(faultlineSlot.Now()) }

func faultlineNativeFmtPrint(a ...any) (int, error) { return fmt.Fprint(faultlineSlot.Out(), a...) }
func faultlineNativeFmtPrintf(format string, a ...any) (int, error) {
	return fmt.Fprintf(faultlineSlot.Out(), format, a...)
}
func faultlineNativeFmtPrintln(a ...any) (int, error) { return fmt.Fprintln(faultlineSlot.Out(), a...) }
`

// nativeDiffDriver grades every submission once with seed 1, printing
// each sanitised report; or, when FAULTLINE_NATIVE_SWEEP names a file of
// "scenario seed" lines, grades each submission on each of those jobs and
// prints one line per job: the submission, the scenario, the seed and the
// SHA-256 of the sanitised report (a sweep's reports would be gigabytes).
const nativeDiffDriver = `package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/grader"
%s)

func main() {
	subs := []struct {
		name   string
		copies []grader.NativeCopy
	}{
%s	}
	type job struct {
		scenario string
		seed     int64
	}
	var jobs []job
	if path := os.Getenv("FAULTLINE_NATIVE_SWEEP"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			name, seed, _ := strings.Cut(sc.Text(), " ")
			n, err := strconv.ParseInt(seed, 10, 64)
			if err != nil {
				fmt.Fprintln(os.Stderr, "sweep:", sc.Text())
				os.Exit(1)
			}
			jobs = append(jobs, job{name, n})
		}
		f.Close()
	}
	grader.RunInBubbleProcess(func(b grader.Bubble) {
		for _, s := range subs {
			if jobs != nil {
				for _, j := range jobs {
					rep, err := grader.GradeNative(context.Background(), grader.Job{Seed: j.seed, Scenarios: []string{j.scenario}}, &grader.NativeCopies{Copies: s.copies}, b)
					if err != nil {
						fmt.Fprintln(os.Stderr, s.name, err)
						os.Exit(1)
					}
					out, err := json.MarshalIndent(rep.Sanitized(), "", "  ")
					if err != nil {
						fmt.Fprintln(os.Stderr, s.name, err)
						os.Exit(1)
					}
					fmt.Printf("%%s %%s %%d %%x\n", s.name, j.scenario, j.seed, sha256.Sum256(append(out, '\n')))
				}
				continue
			}
			rep, err := grader.GradeNative(context.Background(), grader.Job{Seed: 1}, &grader.NativeCopies{Copies: s.copies}, b)
			if err != nil {
				fmt.Fprintln(os.Stderr, s.name, err)
				os.Exit(1)
			}
			out, err := json.MarshalIndent(rep.Sanitized(), "", "  ")
			if err != nil {
				fmt.Fprintln(os.Stderr, s.name, err)
				os.Exit(1)
			}
			fmt.Printf("=== %%s\n%%s\n", s.name, out)
		}
	})
}
`

// gradeNatively builds one program holding every submission (a package per
// submission and worker copy, in a temporary directory inside the module),
// runs it, and returns each submission's sanitised report.
func gradeNatively(t *testing.T, subs []diffSubmission) map[string][]byte {
	out := runNative(t, subs, nil)
	reports := map[string][]byte{}
	for _, part := range strings.Split(string(out), "=== ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		body = strings.TrimSuffix(strings.TrimSpace(body), "PASS")
		var check json.RawMessage
		if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &check); err != nil {
			t.Fatalf("%s: native output is not a report: %v", name, err)
		}
		reports[name] = []byte(strings.TrimSpace(body) + "\n")
	}
	return reports
}

// sweepJob is one scenario graded with one seed.
type sweepJob struct {
	scenario string
	seed     int64
}

// sweepKey names a job's report in a sweep's map.
func sweepKey(sub string, j sweepJob) string { return fmt.Sprintf("%s %s %d", sub, j.scenario, j.seed) }

// gradeNativelySweep grades every submission natively on every job and
// returns, by sweepKey, the SHA-256 (hex) of each sanitised report.
func gradeNativelySweep(t *testing.T, subs []diffSubmission, jobs []sweepJob) map[string]string {
	out := runNative(t, subs, jobs)
	hashes := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue // the testing framework's PASS
		}
		hashes[f[0]+" "+f[1]+" "+f[2]] = f[3]
	}
	return hashes
}

// runNative builds the native driver for subs and runs it, on jobs when
// there are any, returning its standard output.
func runNative(t *testing.T, subs []diffSubmission, jobs []sweepJob) []byte {
	dir, err := os.MkdirTemp(".", "diffnative")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	copies := maxInvocationsPerRun()
	var imports, table strings.Builder
	for i, s := range subs {
		text, resettable := nativeSource(t, s.name, s.src)
		f, err := parser.ParseFile(token.NewFileSet(), "refund.go", text, parser.PackageClauseOnly)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		reset := "nil"
		if resettable {
			reset = gointerp.ResetFunc
		}
		fmt.Fprintf(&table, "\t\t{%q, []grader.NativeCopy{", s.name)
		for c := 0; c < copies; c++ {
			pkg := fmt.Sprintf("s%dc%d", i, c)
			if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, pkg, "refund.go"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			shim := fmt.Sprintf(nativeShim, f.Name.Name, reset)
			if err := os.WriteFile(filepath.Join(dir, pkg, "faultline_native.go"), []byte(shim), 0o644); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&imports, "\t%s %q\n", pkg, "github.com/faultline-dev/faultline/internal/grader/"+filepath.Base(dir)+"/"+pkg)
			fmt.Fprintf(&table, "%s.FaultlineCopy(), ", pkg)
		}
		table.WriteString("}},\n")
	}
	main := fmt.Sprintf(nativeDiffDriver, imports.String(), table.String())
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "diff")
	build := exec.Command("go", "build", "-tags", "nointerp", "-o", bin, "./"+filepath.Base(dir))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var stderr bytes.Buffer
	run := exec.Command(bin)
	run.Stderr = &stderr
	if jobs != nil {
		var list strings.Builder
		for _, j := range jobs {
			fmt.Fprintf(&list, "%s %d\n", j.scenario, j.seed)
		}
		path, err := filepath.Abs(filepath.Join(dir, "jobs.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(list.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		run.Env = append(os.Environ(), "FAULTLINE_NATIVE_SWEEP="+path)
	}
	out, err := run.Output()
	if err != nil {
		t.Fatalf("native grading: %v\n%s", err, stderr.String())
	}
	return out
}
