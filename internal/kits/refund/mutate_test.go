package refund_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/mutation"
)

// TestMutantsAreMade: the operators make mutants of every correct solution
// in the corpus, and each mutant is Go source that parses.
func TestMutantsAreMade(t *testing.T) {
	byOp := map[string]int{}
	files := corpusFiles(t, "correct")
	if testing.Short() || raceEnabled {
		files = files[:3]
	}
	for _, f := range append(files, referenceFile) {
		ms, err := mutation.Mutants(readSource(t, f), refundMutation)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(ms) == 0 {
			t.Errorf("%s: no mutants", f)
		}
		for _, m := range ms {
			byOp[m.Operator]++
			if m.Source == "" || !strings.Contains(m.Source, "func RefundMoney") {
				t.Errorf("%s %s: no source", f, m.ID)
			}
		}
	}
	for _, op := range mutation.Ops {
		if byOp[op] == 0 {
			t.Errorf("operator %s made no mutant of the corpus", op)
		}
	}
	t.Logf("mutants per operator: %v", byOp)
}

// Survivors of the mutation run that are not classified by a rule
// (Mutant.Equivalent) are explained in testdata/mutation-survivors.txt:
// each is equivalent (with the reason), an escape (a defect no scenario
// catches yet, with the scenario that would) or pending (an escape whose
// scenario is being written). The file names a reason once and lists the
// survivors that have it, each with the line the mutant changes as the
// file reads, so an entry that no longer points at its line fails loudly.
const survivorsFile = "testdata/mutation-survivors.txt"

// refundMutation tells the mutation tool the harness's trace function,
// for its trace-only rule.
var refundMutation = mutation.Options{Trace: refund.HarnessPath + ".Logf"}

// Kinds of survivor explanations.
const (
	survivorEquivalent = "equivalent"
	survivorEscape     = "escape"
	survivorPending    = "pending"
)

type survivorReason struct {
	name, kind, text string
}

type survivorEntry struct {
	file, id, line string
	reason         *survivorReason
	at             int // line of survivorsFile, for messages
}

type survivorList struct {
	reasons map[string]*survivorReason
	entries map[string]*survivorEntry // "file id"
}

// parseSurvivors reads a survivors file (named file, for messages):
// "reason NAME KIND: text" lines, then "FILE MUTANT-ID REASON | the
// changed line" lines; # starts a comment line.
func parseSurvivors(file, text string) (*survivorList, error) {
	l := &survivorList{reasons: map[string]*survivorReason{}, entries: map[string]*survivorEntry{}}
	type pending struct {
		e    *survivorEntry
		name string
	}
	var refs []pending
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "reason "); ok {
			name, rest, _ := strings.Cut(rest, " ")
			kind, why, ok := strings.Cut(rest, ": ")
			switch {
			case !ok || name == "" || strings.TrimSpace(why) == "":
				return nil, fmt.Errorf("%s:%d: want \"reason NAME KIND: text\"", file, n)
			case kind != survivorEquivalent && kind != survivorEscape && kind != survivorPending:
				return nil, fmt.Errorf("%s:%d: reason %s has kind %q, want equivalent, escape or pending", file, n, name, kind)
			case l.reasons[name] != nil:
				return nil, fmt.Errorf("%s:%d: reason %s is named twice", file, n, name)
			}
			l.reasons[name] = &survivorReason{name, kind, strings.TrimSpace(why)}
			continue
		}
		head, changed, ok := strings.Cut(line, " | ")
		f := strings.Fields(head)
		if !ok || len(f) != 3 || strings.TrimSpace(changed) == "" {
			return nil, fmt.Errorf("%s:%d: want \"FILE MUTANT-ID REASON | changed line\"", file, n)
		}
		e := &survivorEntry{file: f[0], id: f[1], line: strings.TrimSpace(changed), at: n}
		if l.entries[e.file+" "+e.id] != nil {
			return nil, fmt.Errorf("%s:%d: %s %s is listed twice", file, n, e.file, e.id)
		}
		l.entries[e.file+" "+e.id] = e
		refs = append(refs, pending{e, f[2]})
	}
	for _, r := range refs {
		if r.e.reason = l.reasons[r.name]; r.e.reason == nil {
			return nil, fmt.Errorf("%s:%d: no reason named %s", file, r.e.at, r.name)
		}
	}
	return l, nil
}

func loadSurvivors(t testing.TB) *survivorList {
	t.Helper()
	l, err := parseSurvivors(survivorsFile, readSource(t, survivorsFile))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// mutationVerdict turns a grade into a verdict: "killed" (a scenario failed,
// or the mutant was stopped at a limit or by a crash: caught either way),
// "stillborn" (it does not compile or load), "grader-error" (the grader
// itself broke) or "survived".
func mutationVerdict(rep *gradewire.Report, err error) string {
	switch {
	case err != nil:
		return "grader-error"
	case rep.Status == gradewire.StatusFail:
		return "killed"
	case rep.Status == gradewire.StatusError && len(rep.Diagnostics) > 0:
		return "stillborn"
	case rep.Status == gradewire.StatusError && strings.HasPrefix(rep.Message, "The submission was stopped"):
		return "killed"
	case rep.Status == gradewire.StatusError:
		return "grader-error"
	}
	return "survived"
}

// TestSurvivorsFileParses keeps the survivors file well formed even where
// the mutation run does not run, and checks the parser's refusals.
func TestSurvivorsFileParses(t *testing.T) {
	loadSurvivors(t)
	bad := []struct{ text, want string }{
		{"reason a wrong: x", "kind \"wrong\""},
		{"reason a equivalent x", "want \"reason NAME KIND"},
		{"reason a equivalent: x\nreason a escape: y", "named twice"},
		{"refund.go drop-statement@1:1 nope | x", "no reason named nope"},
		{"refund.go drop-statement@1:1 a", "want \"FILE MUTANT-ID REASON"},
		{"reason a equivalent: x\nf id a | x\nf id a | x", "listed twice"},
	}
	for _, b := range bad {
		if _, err := parseSurvivors(survivorsFile, b.text); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: got %v, want an error containing %q", b.text, err, b.want)
		}
	}
}

// TestMutationSample grades a fixed sample of the reference's mutants (one
// in mutationSampleStep): each must be killed, stillborn, or explained (by
// a rule or in the survivors file). The full run is TestMutationFull.
func TestMutationSample(t *testing.T) {
	const mutationSampleStep = 12
	ms, err := mutation.Mutants(readSource(t, referenceFile), refundMutation)
	if err != nil {
		t.Fatal(err)
	}
	survivors := loadSurvivors(t)
	name := filepath.Base(referenceFile)
	for i := 0; i < len(ms); i += mutationSampleStep {
		m := ms[i]
		t.Run(m.ID, func(t *testing.T) {
			rep, err := refund.GradeSource(context.Background(), "refund.go", m.Source, scenariosNamed(t), faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
			v := mutationVerdict(rep, err)
			e := survivors.entries[name+" "+m.ID]
			switch {
			case v == "grader-error":
				t.Fatalf("the grader broke: %v %v", err, rep.Message)
			case v != "survived" && m.Equivalent != "":
				t.Fatalf("classified equivalent by rule %s, yet %s: the rule is wrong, or the grader fails a change that does nothing", m.Equivalent, v)
			case v != "survived" && e != nil:
				t.Fatalf("listed in %s:%d (%s) but %s now: take it off the list", survivorsFile, e.at, e.reason.name, v)
			case v != "survived":
			case m.Equivalent != "":
				t.Skipf("equivalent by rule %s", m.Equivalent)
			case e != nil && e.line == m.FirstChanged():
				t.Skipf("%s: %s", e.reason.kind, e.reason.text)
			case e != nil:
				t.Fatalf("%s:%d quotes %q, but the mutant changes %q: did the reference change?", survivorsFile, e.at, e.line, m.FirstChanged())
			default:
				t.Fatalf("mutant %s survived every scenario:\n-%s\n+%s", m.ID, m.Before, m.After)
			}
		})
	}
}

// mutationResult is one graded mutant of one file.
type mutationResult struct {
	file    string // base name
	m       mutation.Mutant
	verdict string
	message string
	why     string // a survivor's explanation: kind and reason
	kind    string // a survivor's explanation kind, or "rule", or "" when unexplained
}

// tokensOf is src with its spacing collapsed: the printer lays a moved
// node out by its old position, so twins can differ in blank lines.
func tokensOf(src string) string {
	return strings.Join(strings.Fields(src), " ")
}

// stateTwins maps each mutant of a state-*.go solution that lies in the
// lines it shares with the reference to the reference's mutant making the
// same change: the state file's patch applied to that mutant's source
// gives this mutant's source, up to spacing. A twin's survival is explained as
// the reference's is, instead of eight more times.
func stateTwins(t testing.TB, refMutants []mutation.Mutant, patches []string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, p := range patches {
		patch := readSource(t, p)
		bySource := map[string]string{}
		for _, r := range refMutants {
			src, err := stateCorpusSource(patch, r.Source)
			if err != nil {
				continue // the change touches the patched lines
			}
			bySource[tokensOf(src)] = r.ID
		}
		name := filepath.Base(stateCorpusFile(p))
		ms, err := mutation.Mutants(readSource(t, stateCorpusFile(p)), refundMutation)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = map[string]string{}
		for _, m := range ms {
			if id := bySource[tokensOf(m.Source)]; id != "" {
				out[name][m.ID] = id
			}
		}
	}
	return out
}

// TestMutationFull grades every mutant of the reference and of every correct
// corpus solution, each in a grading child, and fails on any survivor that
// no rule, no entry of the survivors file and no reference twin explains;
// on an entry that no longer matches a survivor; and on a mutant a rule
// calls equivalent that a scenario kills. It takes minutes, so it runs
// only when asked (=reference: the reference's mutants only; =GLOB, such
// as state-*: the reference's and those corpus files';
// FAULTLINE_MUTATE_DRAFT=FILE also writes draft survivors-file entries for
// the unexplained survivors to FILE):
//
//	FAULTLINE_MUTATE=1 go test ./internal/kits/refund -run TestMutationFull -v -timeout 1h
func TestMutationFull(t *testing.T) {
	if os.Getenv("FAULTLINE_MUTATE") == "" {
		t.Skip("set FAULTLINE_MUTATE=1 for the full mutation run")
	}
	survivors := loadSurvivors(t)
	start := time.Now()
	files := []string{referenceFile}
	switch sel := os.Getenv("FAULTLINE_MUTATE"); sel {
	case "reference":
	case "1":
		files = append(files, corpusFiles(t, "correct")...)
	default:
		// A glob of corpus file names ("state-*"): the reference and those.
		for _, f := range corpusFiles(t, "correct") {
			if ok, _ := filepath.Match(sel, filepath.Base(f)); ok {
				files = append(files, f)
			}
		}
	}
	var results []*mutationResult
	var refMutants []mutation.Mutant
	for _, f := range files {
		ms, err := mutation.Mutants(readSource(t, f), refundMutation)
		if err != nil {
			t.Fatal(err)
		}
		if f == referenceFile {
			refMutants = ms
		}
		for _, m := range ms {
			results = append(results, &mutationResult{file: filepath.Base(f), m: m})
		}
	}
	gradeInChildren(t, results)
	elapsed := time.Since(start)

	twins := stateTwins(t, refMutants, stateCorpusPatches(t))
	refResult := map[string]*mutationResult{}
	for _, r := range results {
		if r.file == filepath.Base(referenceFile) {
			refResult[r.m.ID] = r
		}
	}
	used := map[string]bool{}
	var problems []string
	explain := func(r *mutationResult) {
		key := r.file + " " + r.m.ID
		e := survivors.entries[key]
		if e != nil {
			used[key] = true
		}
		switch {
		case r.verdict == "stillborn" && r.m.Equivalent != "":
			// The compiler refuses it (a dropped trace line that was the
			// only use of a local variable: declared and not used), so it
			// does nothing a rule could misjudge: stillborn, as counted.
		case r.verdict != "survived" && r.m.Equivalent != "":
			problems = append(problems, fmt.Sprintf("%s: classified equivalent by rule %s, yet %s (%s): the rule is wrong, or the grader fails a change that does nothing", key, r.m.Equivalent, r.verdict, r.message))
		case r.verdict != "survived" && e != nil:
			problems = append(problems, fmt.Sprintf("%s:%d: %s is listed (%s) but %s now (%s): take it off the list", survivorsFile, e.at, key, e.reason.name, r.verdict, r.message))
		case r.verdict != "survived":
		case r.m.Equivalent != "":
			r.kind, r.why = "rule", "equivalent by rule "+r.m.Equivalent
		case e != nil && e.line != r.m.FirstChanged():
			problems = append(problems, fmt.Sprintf("%s:%d: %s quotes %q, but the mutant changes %q: did the file change?", survivorsFile, e.at, key, e.line, r.m.FirstChanged()))
		case e != nil:
			r.kind, r.why = e.reason.kind, e.reason.kind+" ("+e.reason.name+"): "+e.reason.text
		}
		if twin := twins[r.file][r.m.ID]; twin != "" {
			tr := refResult[twin]
			// Twins can differ: a change in the shared lines may meet the
			// patched ones (the reference's loop handles backoff(0), a
			// state table does not). Only a survivor whose twin survived
			// too takes the twin's explanation.
			if tr != nil && tr.verdict == "survived" && r.verdict == "survived" && r.kind == "" && tr.kind != "" {
				r.kind, r.why = tr.kind, "as refund.go "+twin+": "+tr.why
			}
		}
		if r.verdict == "survived" && r.kind == "" {
			problems = append(problems, fmt.Sprintf("UNEXPLAINED %s survived every scenario:\n-%s+%s", key, indent(r.m.Before), indent(r.m.After)))
		}
	}
	// The reference first: its explanations are its twins'.
	for _, r := range results {
		if r.file == filepath.Base(referenceFile) {
			explain(r)
		}
	}
	for _, r := range results {
		if r.file != filepath.Base(referenceFile) {
			explain(r)
		}
	}
	graded := map[string]bool{}
	for _, r := range results {
		graded[r.file] = true
	}
	for key, e := range survivors.entries {
		if !used[key] && graded[e.file] {
			problems = append(problems, fmt.Sprintf("%s:%d: %s is not a mutant the tool makes any more: take it off the list", survivorsFile, e.at, key))
		}
	}

	counts := map[string]map[string]int{}
	total := map[string]int{}
	var survived []string
	for _, r := range results {
		c := r.verdict
		if c == "survived" {
			c = r.kind
			if c == "" {
				c = "unexplained"
			}
			survived = append(survived, r.file+" "+r.m.ID+": "+r.why)
		}
		if counts[r.m.Operator] == nil {
			counts[r.m.Operator] = map[string]int{}
		}
		counts[r.m.Operator][c]++
		total[c]++
	}
	cols := []string{"killed", "stillborn", "rule", survivorEquivalent, survivorPending, survivorEscape, "unexplained", "grader-error"}
	var lines []string
	row := func(name string, c map[string]int) {
		s := fmt.Sprintf("%-17s", name)
		for _, k := range cols {
			s += fmt.Sprintf(" %11d", c[k])
		}
		lines = append(lines, s)
	}
	head := fmt.Sprintf("%-17s", "operator")
	for _, k := range cols {
		head += fmt.Sprintf(" %11s", k)
	}
	lines = append(lines, head)
	for _, op := range mutation.Ops {
		row(op, counts[op])
	}
	row("all", total)
	sort.Strings(survived)
	t.Logf("mutation run: %d mutants of %d files graded in %s (equivalent columns: rule = by a rule of internal/mutation; equivalent, pending, escape = %s or a reference twin)\n%s\nsurvivors (%d):\n%s",
		len(results), len(graded), elapsed.Round(time.Second), survivorsFile, strings.Join(lines, "\n"), len(survived), strings.Join(survived, "\n"))
	if path := os.Getenv("FAULTLINE_MUTATE_DRAFT"); path != "" {
		// Draft entries for the unexplained survivors, REASON left as "?":
		// a start for whoever explains them.
		var draft []string
		for _, r := range results {
			if r.verdict == "survived" && r.kind == "" {
				draft = append(draft, fmt.Sprintf("%s %s ? | %s", r.file, r.m.ID, r.m.FirstChanged()))
			}
		}
		if err := os.WriteFile(path, []byte(strings.Join(draft, "\n")+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Errorf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n ") + "\n"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// TestStateTwins: a state-* solution's mutants in the lines it shares with
// the reference are matched to the reference's (most of them: the shared
// lines are most of the file), each to one of the same operator, and a
// mutant in the patched lines is matched to none.
func TestStateTwins(t *testing.T) {
	ref, err := mutation.Mutants(readSource(t, referenceFile), refundMutation)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]mutation.Mutant{}
	for _, m := range ref {
		byID[m.ID] = m
	}
	patches := stateCorpusPatches(t)
	if testing.Short() || raceEnabled {
		patches = []string{"testdata/corpus/state/state-slice-table.patch", "testdata/corpus/state/state-mutex.patch"}
	}
	twins := stateTwins(t, ref, patches)
	for _, p := range patches {
		name := filepath.Base(stateCorpusFile(p))
		ms, err := mutation.Mutants(readSource(t, stateCorpusFile(p)), refundMutation)
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for _, m := range ms {
			tw, ok := twins[name][m.ID]
			if !ok {
				continue
			}
			matched++
			if r := byID[tw]; r.Operator != m.Operator || r.FirstChanged() != m.FirstChanged() {
				t.Errorf("%s %s (%s) is matched to refund.go %s (%s)", name, m.ID, m.FirstChanged(), tw, r.FirstChanged())
			}
		}
		if matched < len(ms)*8/10 {
			t.Errorf("%s: %d of %d mutants have a reference twin, want most", name, matched, len(ms))
		}
	}
	// state-slice-table replaces the loop of backoff: none of its mutants
	// there may claim a reference twin.
	for id, tw := range twins["state-slice-table.go"] {
		if strings.Contains(byID[tw].FirstChanged(), "for i := 1; i < attempt") {
			t.Errorf("state-slice-table.go %s is matched to refund.go %s, in lines the patch replaced", id, tw)
		}
	}
}
