//go:build !nointerp

package faultsim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// maxJobBytes bounds what a child reads: a source and a scenarios file
// are each far below a megabyte.
const maxJobBytes = 4 << 20

// childMaxStack stops runaway recursion of interpreted code early, as a
// stack overflow, before the stack outgrows the child's address space.
const childMaxStack = 256 << 20

// ChildMessage is one NDJSON line a grading child writes (the wire
// contract, internal/gradewire): scenarios and the report leave the child
// converted to the wire's report (see wire.go).
type ChildMessage = gradewire.ChildMessage

// ServeChild is a grading child's whole life: it reads one JSON Job from
// in, grades it with the kit it names among kits in a synctest bubble,
// writes the result lines to out and exits the process. It returns only
// when the job cannot be read, before any submitted code ran. The caller
// runs it under the sandbox's limits.
func ServeChild(in io.Reader, out io.Writer, kits []Kit) error {
	data, err := io.ReadAll(io.LimitReader(in, maxJobBytes+1))
	if err != nil {
		return fmt.Errorf("faultsim: read the job: %w", err)
	}
	if len(data) > maxJobBytes {
		return fmt.Errorf("faultsim: the job is larger than %d bytes", maxJobBytes)
	}
	var job Job
	if err := json.Unmarshal(data, &job); err != nil {
		return fmt.Errorf("faultsim: decode the job: %w", err)
	}
	debug.SetMaxStack(childMaxStack)
	MarkGradingChild()
	InProcess(func(b Bubble) { ServeJob(context.Background(), kits, job, b, out) })
	return nil
}

// ServeJob grades job in b and writes the result lines to out; split from
// ServeChild so tests can give it a bubble of their own.
func ServeJob(ctx context.Context, kits []Kit, job Job, b Bubble, out io.Writer) {
	w := &lineWriter{w: bufio.NewWriter(out)}
	rep, err := RunJob(ctx, kits, job, b, func(s ScenarioResult) {
		ws := s.Wire()
		w.write(ChildMessage{Scenario: &ws})
	})
	switch {
	case err != nil:
		w.write(ChildMessage{Error: err.Error()})
	case rep == nil:
		w.write(ChildMessage{Error: "faultsim: the grade returned no report and no error"})
	default:
		w.write(ChildMessage{Report: rep.Wire(job.FirstSeed)})
	}
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
