package grader

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// KitName is the refund kit's name, as a problem's front matter spells it
// (code.kit, or code.grader).
const KitName = "refund"

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
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f scenariosFile
	if err := dec.Decode(&f); err != nil {
		return nil, yamlError(file, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(file, err)
	}
	l := &scenarioLinter{file: file, root: &root}
	if f.Kit != KitName {
		l.errf(l.line("kit"), "kit is %q: this file is for kit %q", f.Kit, KitName)
	}
	if len(f.Scenarios) == 0 {
		l.errf(1, "the file declares no scenarios")
	}
	seen := map[string]bool{}
	for i := range f.Scenarios {
		f.Scenarios[i].line = l.line("scenarios", i)
		l.scenario(i, &f.Scenarios[i], seen)
	}
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return f.Scenarios, nil
}

// Suites maps a problem slug to its built-in scenarios.
var Suites = map[string]func() []Scenario{
	DefaultProblem: AsyncRefundSuite,
}

// DefaultProblem is the problem graded when a job names none.
const DefaultProblem = "async-refund"

// AsyncRefundSuite returns the scenarios for the async-refund problem, in
// report order, from the content built into the binary. Each call returns
// fresh values.
func AsyncRefundSuite() []Scenario {
	data, err := content.FS.ReadFile(builtinScenariosFile)
	if err != nil {
		panic("grader: the built-in content has no " + builtinScenariosFile + ": " + err.Error())
	}
	list, err := parseScenariosOnce(builtinScenariosFile, string(data))
	if err != nil {
		// The content's own tests lint it: a build with a broken file
		// is a bug of this repository, not of the grade.
		panic("grader: the built-in scenarios do not parse: " + err.Error())
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

var yamlLine = regexp.MustCompile(`line (\d+): `)

// yamlError restates a yaml error as file:line: message.
func yamlError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var errs []error
		for _, m := range te.Errors {
			errs = append(errs, lineError(file, m))
		}
		return errors.Join(errs...)
	}
	return lineError(file, strings.TrimPrefix(err.Error(), "yaml: "))
}

func lineError(file, msg string) error {
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		rest := msg[:m[0]] + msg[m[1]:]
		return fmt.Errorf("%s:%d: %s", file, n, strings.TrimPrefix(rest, "yaml: "))
	}
	return fmt.Errorf("%s: %s", file, msg)
}

// scenarioLinter checks what the decoder cannot, with lines from the node
// tree.
type scenarioLinter struct {
	file string
	root *yaml.Node
	errs []error
}

func (l *scenarioLinter) errf(line int, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s:%d: %s", l.file, line, fmt.Sprintf(format, args...)))
}

// node walks from the document along keys (strings) and indexes (ints);
// it returns the deepest node it reached.
func (l *scenarioLinter) node(path ...any) *yaml.Node {
	n := l.root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return n
			}
			found := false
			for k := 0; k+1 < len(n.Content); k += 2 {
				if n.Content[k].Value == p {
					n, found = n.Content[k+1], true
					break
				}
			}
			if !found {
				return n
			}
		case int:
			if n.Kind != yaml.SequenceNode || p >= len(n.Content) {
				return n
			}
			n = n.Content[p]
		}
	}
	return n
}

func (l *scenarioLinter) line(path ...any) int { return l.node(path...).Line }

// scenario checks one scenario, each problem at the line of what is wrong;
// Validate then catches anything left, at the scenario's line.
func (l *scenarioLinter) scenario(i int, sc *Scenario, seen map[string]bool) {
	at := func(path ...any) int { return l.line(append([]any{"scenarios", i}, path...)...) }
	before := len(l.errs)
	name := sc.Name
	switch {
	case name == "":
		l.errf(at(), "scenario %d has no name", i+1)
		name = fmt.Sprintf("#%d", i+1)
	case seen[name]:
		l.errf(at("name"), "scenario %q: the name is used twice", name)
	}
	seen[name] = true
	if len(sc.Phases) == 0 {
		l.errf(at(), "scenario %q has no phases: nobody calls RefundMoney", name)
	}
	fault := func(f world.Fault, path ...any) {
		if err := f.Validate(); err != nil {
			l.errf(at(path...), "scenario %q: %s", name, strings.TrimPrefix(err.Error(), "refundkit: "))
		}
	}
	for k, f := range sc.Faults {
		fault(f, "faults", k)
	}
	for k, f := range sc.LookupFaults {
		if err := world.ValidateLookupFault(f); err != nil {
			l.errf(at("lookup_faults", k), "scenario %q: %s", name, strings.TrimPrefix(err.Error(), "refundkit: "))
		}
	}
	for k, r := range sc.Panics {
		switch {
		case !slices.Contains(harnessCalls, r.Call):
			l.errf(at("panics", k, "call"), "scenario %q: unknown call %q (want one of %s)", name, r.Call, strings.Join(harnessCalls, ", "))
		case r.Nth < 1:
			l.errf(at("panics", k), "scenario %q: nth counts the calls of %s from 1, not %d", name, r.Call, r.Nth)
		default:
			if err := world.ValidatePanicRule(r); err != nil {
				l.errf(at("panics", k), "scenario %q: %s", name, strings.TrimPrefix(err.Error(), "refundkit: "))
			}
		}
	}
	for k, id := range sc.Invariants {
		if _, ok := invariantOf(id); !ok {
			l.errf(at("invariants", k), "scenario %q: unknown invariant %q (want one of %s)", name, id, strings.Join(InvariantIDs, ", "))
		}
	}
	for inv, d := range sc.Defects {
		if _, ok := invariantOf(inv); !ok {
			l.errf(at("defects", inv), "scenario %q maps unknown invariant %q to a defect", name, inv)
		}
		if _, ok := defectTitles[d]; !ok {
			l.errf(at("defects", inv), "scenario %q: unknown defect %q (want one of %s)", name, d, strings.Join(DefectIDs, ", "))
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
		l.errf(at("explore", "crash_worker"), "scenario %q: crash worker %q makes no call, so it has no crash point", name, w)
	}
	if len(l.errs) == before {
		if err := sc.Validate(); err != nil {
			l.errf(at(), "%s", strings.TrimPrefix(err.Error(), "grader: "))
		}
	}
}
