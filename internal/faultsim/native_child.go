//go:build !nointerp || referee

package faultsim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// maxJobBytes bounds what a child reads: a source and a scenarios file
// are each far below a megabyte.
const maxJobBytes = 4 << 20

// childMaxStack stops runaway recursion of submitted code early, as a
// stack overflow, before the stack outgrows the child's address space.
const childMaxStack = 256 << 20

// ChildMessage is one NDJSON line a grading child writes (the wire
// contract, internal/gradewire): scenarios and the report leave the child
// converted to the wire's report (see wire.go).
type ChildMessage = gradewire.ChildMessage

// Job is one grade as the parent sends it to the grading child (the wire
// contract, internal/gradewire).
type Job = gradewire.Job

// readJob reads and decodes one job, bounded by maxJobBytes.
func readJob(in io.Reader) (Job, error) {
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

// jobKit is the kit job names, among kits.
func jobKit(kits []Kit, job Job) (Kit, error) {
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

// jobScenarios are the scenarios job runs: its file's, or those it names
// (Only), in the order named.
func jobScenarios(k Kit, job Job) ([]Scenario, error) {
	scenarios, err := k.ParseScenarios(job.ScenariosFile, job.Scenarios)
	if err != nil {
		return nil, err
	}
	if len(job.Only) == 0 {
		return scenarios, nil
	}
	var picked []Scenario
	for _, name := range job.Only {
		j := slices.IndexFunc(scenarios, func(s Scenario) bool { return s.Plan().Name == name })
		if j < 0 {
			return nil, fmt.Errorf("faultsim: %s has no scenario %q", job.ScenariosFile, name)
		}
		picked = append(picked, scenarios[j])
	}
	return picked, nil
}

// NativeCopiesNeeded is how many copies of a submission a grade of
// scenarios on one lane loads at most at once: the busiest run's calls,
// each of which may be restarted once.
func NativeCopiesNeeded(scenarios []Scenario) int {
	n := 1
	for _, sc := range scenarios {
		n = max(n, 2*len(sc.Plan().Calls))
	}
	return n
}

// ServeNative is the native referee's program: it reads one Job from in,
// grades it on one lane with kit k through the natively compiled copies
// copies returns (a package each, built by the go tool beside the
// program), and writes the report line to out as a grading child does.
// The referee runs it under the same sandbox limits as the grading child.
// It returns an error only when the job cannot be read or graded at all.
func ServeNative(in io.Reader, out io.Writer, k Kit, copies func() []NativeCopy) error {
	job, err := readJob(in)
	if err != nil {
		return err
	}
	debug.SetMaxStack(childMaxStack)
	w := &lineWriter{w: bufio.NewWriter(out)}
	scenarios, err := jobScenarios(k, job)
	if err != nil {
		w.write(ChildMessage{Error: err.Error()})
		return nil
	}
	InProcess(func(b Bubble) {
		cs := copies()
		prog := &NativeCopies{Kit: k, Copies: cs, Shared: len(cs) == 1 && cs[0].Reset == nil}
		rep, err := Grade(context.Background(), k, scenarios, prog, b, Options{Seeds: job.Seeds, FirstSeed: job.FirstSeed, Lanes: 1})
		switch {
		case err != nil:
			w.write(ChildMessage{Error: err.Error()})
		default:
			w.write(ChildMessage{Report: rep.Wire(job.FirstSeed).Kept()})
		}
	})
	return nil
}

// lineWriter writes one JSON line per message and flushes it, so what was
// written before the child died reaches the parent.
type lineWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (l *lineWriter) write(m ChildMessage) {
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
