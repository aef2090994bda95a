//go:build !nointerp

package grader

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// Grade interprets job.Source and runs every scenario of its problem (or
// those job.Scenarios names), each run in a bubble from b. progress (may be
// nil) gets each ScenarioReport as it finishes. What the submission does —
// a compile error, a forbidden import, a panic, a deadlock, running out of
// virtual time — is data in the Report; the error is for a grader that
// broke (or a job naming an unknown problem or scenario).
func Grade(ctx context.Context, job Job, b Bubble, progress func(ScenarioReport)) (*Report, error) {
	if !inGradingChild.Load() && !testing.Testing() {
		// Interpreted code can end the process (a panic in a goroutine, a
		// stack overflow): it must never run in the server.
		return nil, errors.New("grader: Grade interprets submitted code and runs only in the grading child (use Service)")
	}
	started := time.Now()
	// Compiling submissions allocates heavily and briefly; collecting less
	// often saves about a fifth of a grade. Grade runs alone in its
	// process (the grading child), so the setting is ours to change.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	rep := newReport(job)
	src, diags := gointerp.ParseSource("refund.go", job.Source, []string{RefundkitPath})
	if diags == nil {
		if d := src.CheckFunc(EntryName, []string{"context.Context", "string"}, []string{RefundkitPath + ".Outcome", "error"}, entryWant); d != nil {
			diags = []Diagnostic{*d}
		}
	}
	var prog *interpretedProgram
	if diags == nil {
		cpu0 := processCPU()
		prog, diags = loadProgram(b, job, src)
		if prog != nil {
			prog.lanes = job.Lanes
			if prog.compiled > 0 && (processCPU()-cpu0)/time.Duration(prog.compiled) > laneCompileLimit {
				prog.lanes = 1
			}
		}
	}
	checked := time.Since(started)
	if diags != nil {
		rep.Status = StatusError
		rep.Diagnostics = diags
		rep.Message = "The code could not be graded: " + diags[0].String()
		rep.Timings = &Timings{TotalMS: ms(time.Since(started)), CheckMS: ms(checked), ScenariosMS: map[string]float64{}}
		return rep, nil
	}
	if err := GradeProgram(ctx, job, prog, b, progress, rep); err != nil {
		return nil, err
	}
	rep.Timings.CheckMS = ms(checked)
	rep.Timings.TotalMS = ms(time.Since(started))
	rep.Timings.Interpreters = prog.compiled
	return rep, nil
}

// trialLoad evaluates the submission once, in a bubble, so compile errors
// and init panics become diagnostics before any scenario runs. When the
// interpreters can be reused, it loads one for each other worker id at
// the same time, on every core, instead of one by one as the scenarios
// first need them: as many as a run of the suite uses at once. Should the
// submission not load, those fail too and are thrown away; the
// diagnostics are worker-1's.
func trialLoad(b Bubble, prog *interpretedProgram, seed int64, others []string) (diags []Diagnostic) {
	defer func() {
		if v := recover(); v != nil {
			diags = []Diagnostic{{Message: "loading the code never finished: its package initialisation blocked forever (" + fmt.Sprint(v) + ")"}}
		}
	}()
	if !prog.stateless && !prog.resettable {
		others = nil
	}
	ids := append([]string{"worker-1"}, others...)
	errs := make([]error, len(ids))
	b(func() {
		env := world.NewEnv(openGate{}, world.DefaultNetwork)
		var wg sync.WaitGroup
		for k, id := range ids {
			w := env.NewWorker(id, world.CrashPoint{})
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[k] = prog.Load(w, seed, &sandbox.OutputBuffer{Limit: 1024})
			}()
		}
		wg.Wait()
		// Every interpreter stays in use until all have loaded, so that
		// each worker id compiles one of its own.
		for k, id := range ids {
			if errs[k] == nil {
				prog.Finished(id, true)
			}
		}
	})
	if le, ok := errs[0].(*loadError); ok {
		return le.diags
	} else if errs[0] != nil {
		return []Diagnostic{{Message: errs[0].Error()}}
	}
	return diags
}

// laneCompileLimit is the CPU time of one interpreter's compile past which
// a grade keeps to one lane. A second lane saves about half the scenarios'
// time, some 50 ms for the reference, and costs the two to four
// interpreters more that run at once on two lanes. Measured per compile in
// the trial load: the reference 6 to 11 ms (the high end when a collection
// runs meanwhile, its CPU counted too), the reference padded to 5,000
// lines with a table 75 to 100 ms, for which two lanes took its grade
// from 2.2x to 5.3x the reference's CPU time. The limit sits between.
const laneCompileLimit = 40 * time.Millisecond

// processCPU is the CPU time this process has used, every thread, user
// and system: in the grading child, the grade's own.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPackageState is off only in BenchmarkGradePackageState, to measure
// the fresh interpreter per worker that package state used to cost.
var resetPackageState = true

// loadProgram checks that the submission loads, in the form whose package
// state can be reset between runs when it has any. Should that form not
// load while the file as written does (a form of package initialisation
// the reset does not handle), the file as written is graded with a fresh
// interpreter per worker: slower, never wrong.
func loadProgram(b Bubble, job Job, src *gointerp.Source) (*interpretedProgram, []Diagnostic) {
	plain := func() (*interpretedProgram, []Diagnostic) {
		prog := newInterpretedProgram(src)
		return prog, trialLoad(b, prog, job.Seed, workerIDs(job))
	}
	if !hasPackageState(src.File) || !resetPackageState {
		return plain()
	}
	rsrc, diags := gointerp.ParseResettable("refund.go", job.Source, []string{RefundkitPath})
	if diags != nil || !rsrc.Resettable {
		return plain()
	}
	prog := newInterpretedProgram(rsrc)
	if diags := trialLoad(b, prog, job.Seed, workerIDs(job)); diags != nil {
		return plain()
	}
	return prog, nil
}

// inGradingChild is set by ServeChild: Grade refuses to run anywhere else
// outside tests.
var inGradingChild atomic.Bool
