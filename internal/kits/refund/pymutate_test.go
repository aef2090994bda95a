package refund_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/mutation"
	"github.com/faultline-dev/faultline/internal/pyenv"
)

// The mutation run of the Python reference (issue 31). Its mutants are
// made by testdata/pymutate.py with Python's own ast module, run by the
// python3 pyenv finds: Python's parser and ast.unparse are the language's
// own, so every mutant is Python that parses and prints as Python does,
// where a mutator of Go over Python's tokens would have to find
// statements, blocks and expressions by indentation itself. Its operators
// are the Go tool's (internal/mutation) in Python's terms, and more (see
// the script's OPS); a mutant's id is LINE:COL:OP, its place in the file
// as read, so testdata/py-mutation-survivors.txt stays valid while the
// reference does.

const (
	pyMutatorFile   = "testdata/pymutate.py"
	pySurvivorsFile = "testdata/py-mutation-survivors.txt"
	// pyMutateEnv, set to 1, runs TestPyMutationFull.
	pyMutateEnv = "FAULTLINE_MUTATE_PY"
)

// pyMutant is one mutant as pymutate.py writes it.
type pyMutant struct {
	ID         string `json:"id"`
	Op         string `json:"op"`
	Line       int    `json:"line"`
	Col        int    `json:"col"`
	Source     string `json:"source"`
	Before     string `json:"before"`
	After      string `json:"after"`
	Quote      string `json:"quote"`      // the line it changes, as the file reads
	Equivalent string `json:"equivalent"` // the rule that classifies it (trace-only), or ""
}

func (m pyMutant) mutant() mutation.Mutant {
	return mutation.Mutant{ID: m.ID, Operator: m.Op, Line: m.Line, Source: m.Source,
		Before: m.Before + "\n", After: m.After + "\n", Equivalent: m.Equivalent}
}

// runPyMutator runs pymutate.py with args on stdin.
func runPyMutator(t testing.TB, stdin string, args ...string) []byte {
	t.Helper()
	py, _, why := pyenv.Installation()
	if why != "" {
		t.Skip(why)
	}
	cmd := exec.Command(py, append([]string{"-I", "-S", pyMutatorFile}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", pyMutatorFile, err, stderr.String())
	}
	return out
}

// pyMutants returns the mutants of Python source src.
func pyMutants(t testing.TB, src string) []pyMutant {
	t.Helper()
	var ms []pyMutant
	if err := json.Unmarshal(runPyMutator(t, src), &ms); err != nil {
		t.Fatalf("%s: %v", pyMutatorFile, err)
	}
	return ms
}

// gradePythonMutant grades a mutant as a user's grade does (seed 1, the
// built-in suite), but for shrinking: a failing run is not made smaller,
// which cannot change whether a scenario failed.
func gradePythonMutant(t *testing.T, src string, scenarios []faultsim.Scenario) (*gradewire.Report, error) {
	needPython(t)
	rep, err := faultsim.GradeSource(context.Background(), []faultsim.Runtime{pyRuntime}, refund.Kit{}, scenarios,
		"refund.py", src, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1, NoShrink: true})
	if err != nil {
		return nil, err
	}
	return rep.Wire(1), nil
}

func loadPySurvivors(t testing.TB) *survivorList {
	t.Helper()
	l, err := parseSurvivors(pySurvivorsFile, readSource(t, pySurvivorsFile))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPySurvivorsFileParses keeps the Python survivors file well formed
// where the mutation run does not run.
func TestPySurvivorsFileParses(t *testing.T) {
	l := loadPySurvivors(t)
	for key, e := range l.entries {
		if e.file != "refund.py" {
			t.Errorf("%s:%d: %s: the run mutates refund.py only", pySurvivorsFile, e.at, key)
		}
		if e.reason.kind == survivorPending {
			t.Errorf("%s:%d: %s is pending: the Python run has no pending kind", pySurvivorsFile, e.at, key)
		}
	}
}

var pyMutantID = regexp.MustCompile(`^(\d+):(\d+):([a-z-]+)(/\d+)?$`)

// TestPyMutantsAreMade: every operator makes mutants of the Python
// reference, each with a unique id naming its place and operator, quoting
// the reference's line there, and changing the unparsed file.
func TestPyMutantsAreMade(t *testing.T) {
	needPython(t)
	var ops []string
	if err := json.Unmarshal(runPyMutator(t, "", "--ops"), &ops); err != nil {
		t.Fatal(err)
	}
	src := readSource(t, pyReferenceFile)
	lines := strings.Split(src, "\n")
	ms := pyMutants(t, src)
	byOp := map[string]int{}
	seen := map[string]bool{}
	for _, m := range ms {
		byOp[m.Op]++
		sub := pyMutantID.FindStringSubmatch(m.ID)
		switch {
		case sub == nil || sub[1] != fmt.Sprint(m.Line) || sub[2] != fmt.Sprint(m.Col) || sub[3] != m.Op:
			t.Errorf("%s: not LINE:COL:OP of line %d, column %d, %s", m.ID, m.Line, m.Col, m.Op)
		case seen[m.ID]:
			t.Errorf("%s: made twice", m.ID)
		case m.Line < 1 || m.Line > len(lines) || m.Quote != strings.TrimSpace(lines[m.Line-1]):
			t.Errorf("%s: quotes %q, not the reference's line %d", m.ID, m.Quote, m.Line)
		case m.Before == m.After || !strings.Contains(m.Source, "async def refund_money"):
			t.Errorf("%s: changes nothing, or has no refund_money:\n-%s\n+%s", m.ID, m.Before, m.After)
		case m.Equivalent != "" && !strings.Contains(m.Before, "refundkit.log") && !strings.Contains(m.Quote, "status != Status.DONE"):
			t.Errorf("%s: classified %s, but it changes no trace line:\n-%s", m.ID, m.Equivalent, m.Before)
		}
		seen[m.ID] = true
	}
	for _, op := range ops {
		if byOp[op] == 0 {
			t.Errorf("operator %s made no mutant of the reference", op)
		}
	}
	t.Logf("%d mutants; per operator: %v", len(ms), byOp)
}

// TestPyMutatorTraceRule: the trace-only rule classifies a dropped or
// changed refundkit.log line, and only where nothing else can run: not
// when an argument calls something, when the module goes by another name
// or is bound again, when the file defines a method formatting could run,
// or when the if around the line does more than log.
func TestPyMutatorTraceRule(t *testing.T) {
	needPython(t)
	const head = "import refundkit\n\n"
	for _, tc := range []struct {
		name, src, op, quote, want string
	}{
		{"dropped log", head + "async def refund_money(rid):\n    refundkit.log('a %s', rid)\n    return 'done'\n",
			"drop-statement", "refundkit.log('a %s', rid)", "trace-only"},
		{"f-string argument", head + "async def refund_money(rid):\n    refundkit.log(f'a {rid}: {rid.x}')\n    return 'done'\n",
			"drop-statement", "refundkit.log(f'a {rid}: {rid.x}')", "trace-only"},
		{"negated if of logs", head + "async def refund_money(rid):\n    if rid == 'x':\n        refundkit.log('a')\n    return 'done'\n",
			"negate-condition", "if rid == 'x':", "trace-only"},
		{"constant in an if of logs", head + "async def refund_money(rid):\n    if len(rid) > 3:\n        refundkit.log('a')\n    return 'done'\n",
			"zero-constant", "if len(rid) > 3:", ""},
		{"if that also writes", head + "async def refund_money(rid):\n    if rid == 'x':\n        refundkit.log('a')\n        await refundkit.mark_done(rid)\n    return 'done'\n",
			"negate-condition", "if rid == 'x':", ""},
		{"argument that calls", head + "async def refund_money(rid):\n    refundkit.log('a %s', str(rid))\n    return 'done'\n",
			"drop-statement", "refundkit.log('a %s', str(rid))", ""},
		{"argument that divides", head + "async def refund_money(rid):\n    refundkit.log('a %s', rid.n / 2)\n    return 'done'\n",
			"drop-statement", "refundkit.log('a %s', rid.n / 2)", ""},
		{"module renamed", "import refundkit as rk\n\nasync def refund_money(rid):\n    rk.log('a')\n    return 'done'\n",
			"drop-statement", "rk.log('a')", ""},
		{"module bound again", head + "async def refund_money(rid):\n    refundkit.log('a')\n    return 'done'\n\nrefundkit = None\n",
			"drop-statement", "refundkit.log('a')", ""},
		{"a __str__", head + "class E(Exception):\n    def __str__(self):\n        return 'e'\n\nasync def refund_money(rid):\n    refundkit.log('a %s', rid)\n    return 'done'\n",
			"drop-statement", "refundkit.log('a %s', rid)", ""},
		{"a property", head + "class R:\n    @property\n    def x(self):\n        return 1\n\nasync def refund_money(rid):\n    refundkit.log('a %s', rid)\n    return 'done'\n",
			"drop-statement", "refundkit.log('a %s', rid)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var found []string
			for _, m := range pyMutants(t, tc.src) {
				if m.Op == tc.op && m.Quote == tc.quote {
					found = append(found, m.Equivalent)
				}
			}
			if len(found) == 0 {
				t.Fatalf("no %s mutant of %q", tc.op, tc.quote)
			}
			for _, got := range found {
				if got != tc.want {
					t.Errorf("%s of %q: classified %q, want %q", tc.op, tc.quote, got, tc.want)
				}
			}
		})
	}
}

// pyExplain judges one graded mutant of the Python reference against its
// survivors-file entry (nil if none): it sets r.kind and r.why for an
// explained survivor and returns what is wrong, "" when nothing is.
func pyExplain(r *mutationResult, quote string, e *survivorEntry) string {
	key := r.file + " " + r.m.ID
	switch {
	case r.verdict == "grader-error":
		return fmt.Sprintf("%s: the grader broke: %s", key, r.message)
	case r.verdict == "stillborn" && r.m.Equivalent != "":
		// A dropped log line that was a name's only use loads all the same
		// in Python; were it refused, it would do nothing a rule misjudges.
	case r.verdict != "survived" && r.m.Equivalent != "":
		return fmt.Sprintf("%s: classified equivalent by rule %s, yet %s (%s): the rule is wrong, or the grader fails a change that does nothing", key, r.m.Equivalent, r.verdict, r.message)
	case r.verdict != "survived" && e != nil:
		return fmt.Sprintf("%s:%d: %s is listed (%s) but %s now (%s): take it off the list", pySurvivorsFile, e.at, key, e.reason.name, r.verdict, r.message)
	case r.verdict != "survived":
	case r.m.Equivalent != "":
		r.kind, r.why = "rule", "equivalent by rule "+r.m.Equivalent
	case e != nil && e.line != quote:
		return fmt.Sprintf("%s:%d: %s quotes %q, but the mutant changes %q: did the reference change?", pySurvivorsFile, e.at, key, e.line, quote)
	case e != nil:
		r.kind, r.why = e.reason.kind, e.reason.kind+" ("+e.reason.name+"): "+e.reason.text
	default:
		return fmt.Sprintf("UNEXPLAINED %s survived every scenario:\n-%s+%s", key, indent(r.m.Before), indent(r.m.After))
	}
	return ""
}

// TestPyMutationSample grades a fixed sample of the Python reference's
// mutants (one in pyMutationSampleStep) in this process: each must be
// killed, stillborn or explained. The full run is TestPyMutationFull.
func TestPyMutationSample(t *testing.T) {
	const pyMutationSampleStep = 25
	if testing.Short() {
		t.Skip("grades a dozen Python mutants: not with -short")
	}
	needPython(t)
	ms := pyMutants(t, readSource(t, pyReferenceFile))
	survivors := loadPySurvivors(t)
	scenarios := scenariosNamed(t)
	for i := 0; i < len(ms); i += pyMutationSampleStep {
		m := ms[i]
		t.Run(m.ID, func(t *testing.T) {
			rep, err := gradePythonMutant(t, m.Source, scenarios)
			r := &mutationResult{file: "refund.py", m: m.mutant(), verdict: mutationVerdict(rep, err)}
			if err != nil {
				r.message = err.Error()
			} else if r.verdict != "survived" {
				r.message = firstLine(rep.Message)
			}
			if p := pyExplain(r, m.Quote, survivors.entries[r.file+" "+m.ID]); p != "" {
				t.Fatal(p)
			}
			if r.kind != "" {
				t.Skip(r.why)
			}
		})
	}
}

// TestPyMutationFull grades every mutant of the Python reference, each in
// a grading child as TestMutationFull does (two at a time), with the whole
// built-in suite at seed 1, as a user's grade explores it. A mutant is
// killed (a scenario failed, or it was stopped at a limit), stillborn (it
// does not load: a diagnostic), equivalent by the trace-only rule of
// pymutate.py, or a survivor explained in testdata/py-mutation-survivors.txt
// (equivalent, with the reason; or an escape, with the scenario that would
// catch it). The test fails on an unexplained survivor, on an entry whose
// mutant is killed or no longer made or whose quoted line moved, and on a
// rule-equivalent mutant a scenario kills. FAULTLINE_MUTATE_DRAFT=FILE also
// writes draft entries for the unexplained survivors to FILE.
//
//	FAULTLINE_MUTATE_PY=1 go test ./internal/kits/refund -run TestPyMutationFull -v -timeout 1h
//
// The full run of 6 December 2026, after the three escapes it found were
// closed (see the survivors file's header), on the 2-core machine shared
// with other sessions (load 12 to 18): 293 mutants of refund.py, 202
// killed, 0 stillborn (ast.unparse writes only Python that parses, and no
// mutant failed to load), 9 equivalent by the trace-only rule, 82
// equivalent as documented (by 35 reasons), 0 escapes, 0 unexplained, 0
// grader errors, in 3 minutes 42 s (2 minutes 25 s at load 8).
func TestPyMutationFull(t *testing.T) {
	if os.Getenv(pyMutateEnv) == "" {
		t.Skip("set " + pyMutateEnv + "=1 for the mutation run of the Python reference: " +
			pyMutateEnv + "=1 go test ./internal/kits/refund -run TestPyMutationFull -v -timeout 1h")
	}
	needPython(t)
	survivors := loadPySurvivors(t)
	start := time.Now()
	ms := pyMutants(t, readSource(t, pyReferenceFile))
	results := make([]*mutationResult, len(ms))
	for i, m := range ms {
		results[i] = &mutationResult{file: "refund.py", m: m.mutant()}
	}
	gradeInChildren(t, results)
	elapsed := time.Since(start)

	var problems, survived []string
	used := map[string]bool{}
	counts := map[string]map[string]int{}
	total := map[string]int{}
	var ops []string
	for i, r := range results {
		key := r.file + " " + r.m.ID
		e := survivors.entries[key]
		if e != nil {
			used[key] = true
		}
		if p := pyExplain(r, ms[i].Quote, e); p != "" {
			problems = append(problems, p)
		}
		c := r.verdict
		if c == "survived" {
			if c = r.kind; c == "" {
				c = "unexplained"
			}
			survived = append(survived, key+": "+r.why)
		}
		if counts[r.m.Operator] == nil {
			counts[r.m.Operator] = map[string]int{}
			ops = append(ops, r.m.Operator)
		}
		counts[r.m.Operator][c]++
		total[c]++
	}
	for key, e := range survivors.entries {
		if !used[key] {
			problems = append(problems, fmt.Sprintf("%s:%d: %s is not a mutant the tool makes any more: take it off the list", pySurvivorsFile, e.at, key))
		}
	}
	cols := []string{"killed", "stillborn", "rule", survivorEquivalent, survivorEscape, "unexplained", "grader-error"}
	lines := []string{fmt.Sprintf("%-17s", "operator")}
	for _, k := range cols {
		lines[0] += fmt.Sprintf(" %11s", k)
	}
	row := func(name string, c map[string]int) {
		s := fmt.Sprintf("%-17s", name)
		for _, k := range cols {
			s += fmt.Sprintf(" %11d", c[k])
		}
		lines = append(lines, s)
	}
	for _, op := range ops {
		row(op, counts[op])
	}
	row("all", total)
	sort.Strings(survived)
	t.Logf("Python mutation run: %d mutants of refund.py graded in %s (rule = the trace-only rule of %s; equivalent, escape = %s)\n%s\nsurvivors (%d):\n%s",
		len(results), elapsed.Round(time.Second), pyMutatorFile, pySurvivorsFile, strings.Join(lines, "\n"), len(survived), strings.Join(survived, "\n"))
	if path := os.Getenv("FAULTLINE_MUTATE_DRAFT"); path != "" {
		var draft []string
		for i, r := range results {
			if r.verdict == "survived" && r.kind == "" {
				draft = append(draft, fmt.Sprintf("%s %s ? | %s\n#  -%s\n#  +%s", r.file, r.m.ID, ms[i].Quote,
					strings.ReplaceAll(ms[i].Before, "\n", "\n#   "), strings.ReplaceAll(ms[i].After, "\n", "\n#   ")))
			}
		}
		if err := os.WriteFile(path, []byte(strings.Join(draft, "\n")+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	slices.Sort(problems)
	if len(problems) > 0 {
		t.Errorf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
