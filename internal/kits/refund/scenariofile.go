package refund

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
	"github.com/faultline-dev/faultline/internal/kits/scenariofile"
)

// builtinScenariosFile is the refund problem's scenarios file in the
// content built into the binary: what a job that carries no scenarios of
// its own is graded against.
const builtinScenariosFile = "problems/async-refund/scenarios.yaml"

// scenariosFile is a refund scenarios file as an author writes it.
type scenariosFile struct {
	Kit string `yaml:"kit"`
	// Check names the scenarios the fast pre-grade runs; the content
	// loader reads and checks it, the same for every kit.
	Check     []string   `yaml:"check"`
	Scenarios []Scenario `yaml:"scenarios"`
}

// harnessCalls are the calls a panic rule may name.
var harnessCalls = []string{"GetRecord", "Claim", "MarkProcessing", "MarkDone", "MarkFailed", "MarkNeedsCheck", "CreateRefund", "ListRefunds"}

// ParseScenarios reads a refund scenarios file (content/README.md gives the
// schema). Every problem is an error naming file:line: an unknown field,
// fault kind, call, status, invariant or defect, a crash or trigger naming
// a worker that makes no call, a scenario name used twice.
func ParseScenarios(file string, data []byte) ([]Scenario, error) {
	var f scenariosFile
	decoded, err := scenariofile.Decode(file, data, &f)
	if err != nil {
		return nil, err
	}
	l := &scenarioLinter{*decoded}
	if f.Kit != Name {
		l.Errf(l.Line("kit"), "kit is %q: this file is for kit %q", f.Kit, Name)
	}
	if len(f.Scenarios) == 0 {
		l.Errf(1, "the file declares no scenarios")
	}
	seen := map[string]bool{}
	for i := range f.Scenarios {
		f.Scenarios[i].line = l.Line("scenarios", i)
		l.scenario(i, &f.Scenarios[i], seen)
	}
	if len(l.Errs) > 0 {
		return nil, errors.Join(l.Errs...)
	}
	return f.Scenarios, nil
}

// BuiltinScenariosFile is the refund problem's scenarios file in the
// content built into the binary (content.FS).
const BuiltinScenariosFile = builtinScenariosFile

// Builtin returns the refund problem's scenarios, in report order, from
// the content built into the binary. Each call returns fresh values.
func Builtin() []Scenario {
	data, err := content.FS.ReadFile(builtinScenariosFile)
	if err != nil {
		panic("refund: the built-in content has no " + builtinScenariosFile + ": " + err.Error())
	}
	list, err := parseScenariosOnce(builtinScenariosFile, string(data))
	if err != nil {
		// The content's own tests lint it: a build with a broken file
		// is a bug of this repository, not of the grade.
		panic("refund: the built-in scenarios do not parse: " + err.Error())
	}
	return list
}

// lastParsed is the scenarios file parsed last. Reading the refund file
// took 22 to 50 ms on a loaded 2-core machine, a copy of what it read 2 ms
// (BenchmarkParseScenarios, BenchmarkAsyncRefundSuite; the Go suite it
// replaced was built in 0.1 ms), and a grade asks for its scenarios
// several times (the parent's order of scenarios, the child's trial load
// and its grade, the pages' counts), almost always of the same file.
var lastParsed struct {
	mu         sync.Mutex
	file, data string
	list       []Scenario
}

// parseScenariosOnce is ParseScenarios, parsing a file only when it is not
// the one parsed last; it returns a copy the caller may change.
func parseScenariosOnce(file, data string) ([]Scenario, error) {
	lastParsed.mu.Lock()
	defer lastParsed.mu.Unlock()
	if lastParsed.list == nil || lastParsed.file != file || lastParsed.data != data {
		list, err := ParseScenarios(file, []byte(data))
		if err != nil {
			return nil, err
		}
		lastParsed.file, lastParsed.data, lastParsed.list = file, data, list
	}
	return deepCopy(reflect.ValueOf(lastParsed.list)).Interface().([]Scenario), nil
}

// deepCopy copies v and everything it points to: scenarios hold slices,
// maps and pointers, which a shallow copy would share with the cache.
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type().Elem())
		c.Elem().Set(deepCopy(v.Elem()))
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i)))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), deepCopy(it.Value()))
		}
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v) // unexported fields (a scenario's line) are plain values
		for i := range v.NumField() {
			if c.Field(i).CanSet() {
				c.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return c
	}
	return v
}

// scenarioLinter checks what the decoder cannot, with lines from the node tree.
type scenarioLinter struct{ scenariofile.Linter }

// scenario checks one scenario, each problem at the line of what is wrong;
// Validate then catches anything left, at the scenario's line.
func (l *scenarioLinter) scenario(i int, sc *Scenario, seen map[string]bool) {
	at := func(path ...any) int { return l.Line(append([]any{"scenarios", i}, path...)...) }
	before := len(l.Errs)
	name := sc.Name
	switch {
	case name == "":
		l.Errf(at(), "scenario %d has no name", i+1)
		name = fmt.Sprintf("#%d", i+1)
	case seen[name]:
		l.Errf(at("name"), "scenario %q: the name is used twice", name)
	}
	seen[name] = true
	if len(sc.Phases) == 0 {
		l.Errf(at(), "scenario %q has no phases: nobody calls RefundMoney", name)
	}
	fault := func(f world.Fault, path ...any) {
		if err := f.Validate(); err != nil {
			l.Errf(at(path...), "scenario %q: %s", name, strings.TrimPrefix(err.Error(), "refundkit: "))
		}
	}
	for k, f := range sc.Faults {
		fault(f, "faults", k)
	}
	for k, f := range sc.LookupFaults {
		if err := world.ValidateLookupFault(f); err != nil {
			l.Errf(at("lookup_faults", k), "scenario %q: %s", name, strings.TrimPrefix(err.Error(), "refundkit: "))
		}
	}
	for k, r := range sc.Panics {
		switch {
		case !slices.Contains(harnessCalls, r.Call):
			l.Errf(at("panics", k, "call"), "scenario %q: unknown call %q (want one of %s)", name, r.Call, strings.Join(harnessCalls, ", "))
		case r.Nth < 1:
			l.Errf(at("panics", k), "scenario %q: nth counts the calls of %s from 1, not %d", name, r.Call, r.Nth)
		default:
			if err := world.ValidatePanicRule(r); err != nil {
				l.Errf(at("panics", k), "scenario %q: %s", name, strings.TrimPrefix(err.Error(), "refundkit: "))
			}
		}
	}
	for k, id := range sc.Invariants {
		if _, ok := invariantOf(id); !ok {
			l.Errf(at("invariants", k), "scenario %q: unknown invariant %q (want one of %s)", name, id, strings.Join(InvariantIDs, ", "))
		}
	}
	for inv, d := range sc.Defects {
		if _, ok := invariantOf(inv); !ok {
			l.Errf(at("defects", inv), "scenario %q maps unknown invariant %q to a defect", name, inv)
		}
		if _, ok := defectTitles[d]; !ok {
			l.Errf(at("defects", inv), "scenario %q: unknown defect %q (want one of %s)", name, d, strings.Join(DefectIDs, ", "))
		}
	}
	workers := map[string]bool{}
	for p, ph := range sc.Phases {
		for k, f := range ph.Faults {
			fault(f, "phases", p, "faults", k)
		}
		for _, inv := range ph.Invocations {
			workers[inv.Worker] = true
		}
	}
	if w := sc.Explore.CrashWorker; sc.Explore.CrashPoints != "" && !workers[w] {
		l.Errf(at("explore", "crash_worker"), "scenario %q: crash worker %q makes no call, so it has no crash point", name, w)
	}
	if len(l.Errs) == before {
		if err := sc.Validate(); err != nil {
			l.Errf(at(), "%s", strings.TrimPrefix(err.Error(), "refund: "))
		}
	}
}
