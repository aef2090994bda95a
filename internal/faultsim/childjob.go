package faultsim

// What a child that grades (the interpreting grading child, the native
// referee's program) does with the job it is sent and the lines it sends
// back: the wire contract's child side (internal/gradewire).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// maxJobBytes bounds what a child reads: a source and a scenarios file
// are each far below a megabyte.
const maxJobBytes = 4 << 20

// ChildMaxStack stops runaway recursion of submitted code early, as a
// stack overflow, before the stack outgrows the child's address space.
const ChildMaxStack = 256 << 20

// ChildMessage is one NDJSON line a grading child writes (the wire
// contract, internal/gradewire): scenarios and the report leave the child
// converted to the wire's report (see wire.go).
type ChildMessage = gradewire.ChildMessage

// Job is one grade as the parent sends it to the grading child (the wire
// contract, internal/gradewire).
type Job = gradewire.Job

// ReadJob reads and decodes one job, bounded by maxJobBytes.
func ReadJob(in io.Reader) (Job, error) {
	var job Job
	data, err := io.ReadAll(io.LimitReader(in, maxJobBytes+1))
	if err != nil {
		return job, fmt.Errorf("faultsim: read the job: %w", err)
	}
	if len(data) > maxJobBytes {
		return job, fmt.Errorf("faultsim: the job is larger than %d bytes", maxJobBytes)
	}
	if err := json.Unmarshal(data, &job); err != nil {
		return job, fmt.Errorf("faultsim: decode the job: %w", err)
	}
	return job, nil
}

// JobKit is the kit job names, among kits.
func JobKit(kits []Kit, job Job) (Kit, error) {
	i := slices.IndexFunc(kits, func(k Kit) bool { return k.Name() == job.Kit })
	if i < 0 {
		var names []string
		for _, k := range kits {
			names = append(names, k.Name())
		}
		return nil, fmt.Errorf("faultsim: no kit %q (have %v)", job.Kit, names)
	}
	return kits[i], nil
}

// JobScenarios are the scenarios job runs: its file's, or those it names
// (Only, else its Variation's), in the order named.
func JobScenarios(k Kit, job Job) ([]Scenario, error) {
	scenarios, err := k.ParseScenarios(job.ScenariosFile, job.Scenarios)
	if err != nil {
		return nil, err
	}
	only := job.Only
	if len(only) == 0 && job.Variation != nil {
		only = []string{job.Variation.Scenario}
	}
	if len(only) == 0 {
		return scenarios, nil
	}
	var picked []Scenario
	for _, name := range only {
		j := slices.IndexFunc(scenarios, func(s Scenario) bool { return s.Plan().Name == name })
		if j < 0 {
			return nil, fmt.Errorf("faultsim: %s has no scenario %q", job.ScenariosFile, name)
		}
		picked = append(picked, scenarios[j])
	}
	return picked, nil
}

// LineWriter writes one JSON line per message and flushes it, so what was
// written before the child died reaches the parent.
type LineWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

// NewLineWriter writes the lines to out.
func NewLineWriter(out io.Writer) *LineWriter { return &LineWriter{w: bufio.NewWriter(out)} }

// Write writes m as one line.
func (l *LineWriter) Write(m ChildMessage) {
	line, err := json.Marshal(m)
	if err != nil {
		line, _ = json.Marshal(ChildMessage{Error: "faultsim: encode a result line: " + err.Error()})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(line)
	l.w.WriteByte('\n')
	l.w.Flush() // a failed write means the parent is gone: no one to tell
}

// JobOptions are the options job grades with (progress may be nil).
func JobOptions(job Job, progress func(ScenarioResult)) Options {
	return Options{Seeds: job.Seeds, FirstSeed: job.FirstSeed, Lanes: job.Lanes, Progress: progress, Variation: job.Variation, NoShrink: job.NoShrink}
}
