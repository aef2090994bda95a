package createclient_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/faultsim/nativebuild"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
)

const referenceFile = "solutions/reference/client.go"

// moreStateVariants are correct solutions with package state beside
// bench_test.go's stateVariants, each the reference with a few edits, so
// they keep in step with it: state a run changes (a counter of keys made),
// a lazily filled value, and waits jittered from a source of the process's
// own, which make a worker's random stream visible in the report's times.
// The interpreted route gives each worker (a process) its own copy of the
// state, reset inside its run; Native would share one between workers, so
// their native side is NativeCopies, built by the go tool.
var moreStateVariants = []struct {
	name  string
	edits [][2]string // old, new: each old must occur once
}{
	{"state-counter", [][2]string{
		{"func newKey() string {\n", "// keysMade numbers the keys this process makes.\nvar keysMade int\n\nfunc newKey() string {\n\tkeysMade++\n"},
		{"\treturn string(b)\n", "\treturn fmt.Sprintf(\"%s-%d\", b, keysMade)\n"},
	}},
	{"state-once", [][2]string{
		{"\t\"math/rand\"\n", "\t\"math/rand\"\n\t\"sync\"\n"},
		{"func newKey() string {\n\tconst hex = \"0123456789abcdef\"\n", "var (\n\thexOnce sync.Once\n\thex     []byte\n)\n\nfunc newKey() string {\n\thexOnce.Do(func() { hex = []byte(\"0123456789abcdef\") })\n"},
	}},
	{"state-jitter", [][2]string{
		{"func newKey() string {\n", "// jitter spreads this process's waits, from a source of its own.\nvar jitter = rand.New(rand.NewSource(rand.Int63()))\n\nfunc newKey() string {\n"},
		{"\t\ttime.Sleep(backoff)\n", "\t\ttime.Sleep(backoff + time.Duration(jitter.Int63n(int64(time.Second))))\n"},
	}},
}

// allStateVariants are bench_test.go's variants (the reference among
// them, and the reference padded to 5,000 lines) and moreStateVariants.
func allStateVariants(t testing.TB) []struct{ name, src string } {
	t.Helper()
	src, err := os.ReadFile(referenceFile)
	if err != nil {
		t.Fatal(err)
	}
	out := stateVariants(t, string(src))
	for _, v := range moreStateVariants {
		text := string(src)
		for _, e := range v.edits {
			if n := strings.Count(text, e[0]); n != 1 {
				t.Fatalf("%s: %q occurs %d times in %s, want once: did the reference change?", v.name, e[0], n, referenceFile)
			}
			text = strings.Replace(text, e[0], e[1], 1)
		}
		out = append(out, struct{ name, src string }{v.name, text})
	}
	return out
}

// TestStateVariantsPass: every state variant is a correct solution with
// package state, graded as a submission is.
func TestStateVariantsPass(t *testing.T) {
	seeds := 5
	if raceEnabled {
		seeds = 1
	}
	for _, v := range allStateVariants(t) {
		if v.name == "reference" {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			src := v.src
			parsed, diags := gointerp.ParseResettable("client.go", src, []string{createclient.HarnessPath})
			if diags != nil {
				t.Fatal(diags)
			}
			if !parsed.Resettable {
				t.Fatal("no package state: the variant proves nothing")
			}
			rep, err := interpreted.GradeSource(t.Context(), createclient.Kit{}, loadScenarios(t), "client.go", src, faultsimtest.Bubble(t), faultsim.Options{Seeds: seeds})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status != faultsim.StatusPass {
				t.Errorf("status %s: %s; failed %v", rep.Status, rep.Message, rep.Failed())
			}
		})
	}
}

// nativeCopies is how many copies of a submission the native program
// holds: the lanes of a grade times its busiest run's workers, doubled
// for restarts.
func nativeCopies(t *testing.T, lanes int) int {
	n := 0
	for _, sc := range loadScenarios(t) {
		n = max(n, len(sc.Plan().Calls))
	}
	return lanes * n * 2
}

// TestNativeCopiesEqualInterpreted is the differential test with package
// state: the reference, every state variant and every corpus solution,
// compiled by the go tool into copies of their own (native.NativeCopies:
// each worker its own package state, reset in its run, and the same
// stand-ins for sync, math/rand and fmt the interpreter gives), must be
// graded exactly as interpreted. A difference is the interpreter, or its
// stand-ins, changing what the Go code means. CREATECLIENT_SWEEP=1 grades
// each over 200 seeds, and requires every correct one to pass.
func TestNativeCopiesEqualInterpreted(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the native side")
	}
	var subs []nativebuild.Submission
	add := func(name, file string) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, nativebuild.Submission{Name: name, Filename: "client.go", Source: string(src)})
	}
	for _, v := range allStateVariants(t) {
		if v.name == "padded-5000" && (testing.Short() || raceEnabled) {
			continue
		}
		subs = append(subs, nativebuild.Submission{Name: v.name, Filename: "client.go", Source: v.src})
	}
	if !testing.Short() && !raceEnabled {
		for name := range correct {
			if name != "reference" {
				add(name, "solutions/"+name+"/client.go")
			}
		}
		for name := range broken {
			add("broken/"+name, "solutions/broken/"+name+"/client.go")
		}
	}
	seeds := 3
	if raceEnabled {
		seeds = 1
	}
	sweep := os.Getenv("CREATECLIENT_SWEEP") != ""
	if sweep {
		seeds = 200
	}
	const lanes = 2
	job := nativebuild.Job{Seeds: seeds, Lanes: lanes}
	prog := nativebuild.Program{Kit: createclient.Kit{}, KitImport: "github.com/faultline-dev/faultline/internal/kits/createclient",
		KitValue: "createclient.Kit{}", ScenariosFile: problemDir + "/scenarios.yaml", Copies: nativeCopies(t, lanes)}
	native := prog.Reports(t, ".", subs, []nativebuild.Job{job}, false)
	for _, s := range subs {
		t.Run(s.Name, func(t *testing.T) {
			rep, err := interpreted.GradeSource(t.Context(), createclient.Kit{}, loadScenarios(t), s.Filename, s.Source, faultsimtest.Bubble(t), faultsim.Options{Seeds: job.Seeds, Lanes: job.Lanes})
			if err != nil {
				t.Fatal(err)
			}
			got := indentJSON(t, rep)
			if want := native[s.Name][0]; got != want {
				t.Errorf("the interpreted report differs from the native one:\n%s", firstDiff(want, got))
			}
			if sweep && !strings.HasPrefix(s.Name, "broken/") && rep.Status != faultsim.StatusPass {
				t.Errorf("a correct solution fails over %d seeds: %v", seeds, rep.Failed())
			}
		})
	}
}

// firstDiff shows the lines where two reports first differ.
func firstDiff(want, got string) string {
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

// indentJSON is a report as nativebuild returns one.
func indentJSON(t testing.TB, rep *faultsim.Report) string {
	t.Helper()
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
