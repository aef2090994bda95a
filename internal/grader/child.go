//go:build !nointerp

package grader

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
)

// ChildCommand is the hidden subcommand that turns the server binary into
// a grading child (see Service). It is not shown in usage.
const ChildCommand = "__grade-child"

// maxJobBytes bounds what a child reads from stdin: the job is the source
// (at most MaxSourceBytes), the scenarios file (the built-in one is about
// 40 KiB) and a few fields.
const maxJobBytes = MaxSourceBytes + maxScenariosBytes + 64<<10

// maxScenariosBytes bounds a scenarios file a job carries.
const maxScenariosBytes = 1 << 20

// childMaxStack stops unbounded recursion of interpreted code early, as a
// "stack overflow" crash, instead of letting the runtime double the stack
// until it no longer fits in the address-space limit. A yaegi frame is
// large, but a correct submission stays far below this.
const childMaxStack = 256 << 20

// childMessage is one line of the NDJSON a child writes on its result
// pipe: zero or more progress lines, then exactly one final line carrying
// Report or, when the grader itself broke, Error.
type childMessage struct {
	// Scenario is a finished scenario (progress).
	Scenario *ScenarioReport `json:"scenario,omitempty"`
	// Report is the final report.
	Report *Report `json:"report,omitempty"`
	// Error says the grader itself failed: a bug or a broken problem,
	// never something the submission did.
	Error string `json:"error,omitempty"`
}

// ServeChild is the grading child's whole life: it reads one JSON Job from
// in, grades it in a synctest bubble, streams each finished scenario and
// then the report to out as NDJSON, and exits the process. It returns only
// when the job cannot be read, before any submitted code ran.
//
// It runs under the sandbox's limits (see Service); submitted code runs
// nowhere else.
func ServeChild(in io.Reader, out io.Writer) error {
	job, err := readJob(in)
	if err != nil {
		return err
	}
	debug.SetMaxStack(childMaxStack)
	inGradingChild.Store(true)
	RunInBubbleProcess(func(b Bubble) {
		serveJob(context.Background(), job, b, out)
	})
	return nil
}

// readJob decodes the job a child receives on stdin.
func readJob(in io.Reader) (Job, error) {
	var job Job
	data, err := io.ReadAll(io.LimitReader(in, maxJobBytes+1))
	if err != nil {
		return job, fmt.Errorf("grader: read the job: %w", err)
	}
	if len(data) > maxJobBytes {
		return job, fmt.Errorf("grader: the job is larger than %d bytes", maxJobBytes)
	}
	if err := json.Unmarshal(data, &job); err != nil {
		return job, fmt.Errorf("grader: decode the job: %w", err)
	}
	return job, nil
}

// serveJob grades job in b and writes the result lines to out. Split from
// ServeChild so tests can run it in a bubble of their own (BubbleFromT).
func serveJob(ctx context.Context, job Job, b Bubble, out io.Writer) {
	w := &messageWriter{w: bufio.NewWriter(out)}
	report, err := Grade(ctx, job, b, func(s ScenarioReport) {
		w.write(childMessage{Scenario: &s})
	})
	switch {
	case err != nil:
		w.write(childMessage{Error: err.Error()})
	case report == nil:
		w.write(childMessage{Error: "grader: Grade returned no report and no error"})
	default:
		w.write(childMessage{Report: report})
	}
}

// messageWriter writes one JSON line per message and flushes it at once,
// so what arrived before a crash is not lost. Progress may come from
// several goroutines.
type messageWriter struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (m *messageWriter) write(msg childMessage) {
	line, err := json.Marshal(msg)
	if err != nil {
		line, _ = json.Marshal(childMessage{Error: "grader: encode a result line: " + err.Error()})
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.Write(line)
	m.w.WriteByte('\n')
	m.w.Flush() // a write error means the parent is gone: nothing to tell
}
