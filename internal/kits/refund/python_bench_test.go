package refund_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/pyrun"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// childrenCPU is the CPU time of this process's children that have been
// reaped, with their own reaped descendants: a Python grade's zygote and
// its workers, once the grade closed them.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGradePythonVersusGo grades the refund reference in Go
// (interpreted, as the grading child does) and in Python side by side in
// each iteration, the whole built-in suite at the seeds a user's grade
// explores, and reports each one's median CPU time (the Python grade's
// with its zygote's and lanes') and wall time, and Python's ratios to
// Go's. Python is graded twice: as a grading child grades it, the
// process kept on one CPU (pyrun.Runtime.OneCPU: python-cpu-x), and
// spread over every CPU, as before (spread-cpu-x).
//
// This is the engine alone, in this process: the Go grade pays no
// process start and no native referee, the Python grade pays python3's
// start with asyncio (some 45 ms of CPU). What a user's grade costs,
// whole, is bench/pythoncost.sh.
//
// A Python grade is some 3,200 exchanges with the lanes (606 worker
// starts, 2,600 awaited harness calls; its 570 log lines go with the next
// message, no exchange of their own). Measured on 6 December (2 cores,
// load about 1), -benchtime 5x, twice:
//
//	          Go CPU   Python CPU (one CPU)   its processes   CPU ratio   spread ratio
//	run 1     72 ms        413 ms                270 ms          5.7x        9.0x
//	run 2     87 ms        481 ms                311 ms          5.5x        7.6x
//
// On one CPU the grade takes about a third less CPU time than spread,
// and no longer: across two CPUs each message wakes the other CPU and the
// Go runtime's idle threads (pyrun's onecpu_linux.go). Where the rest
// goes, timed inside a lane by section (process CPU time, per grade):
// the event loop's steps with the code's own work 95 ms, reading and
// decoding the engine's messages 55, writing them 38, handing each answer
// to its future 37. A bare exchange of a line between Go and python3 on
// one CPU costs some 8 us on each side (50 ms for 3,200): most of a lane's
// time is asyncio's own machinery and the code's, spread thin (no one
// function above a few percent; a leaner _run_once, a wire without JSON
// for log lines, and fewer collections each measured no gain).
//
//	go test ./internal/kits/refund -run '^$' -bench GradePythonVersusGo -benchtime 5x
func BenchmarkGradePythonVersusGo(b *testing.B) {
	if os.Getenv(pyenv.UnconfinedEnv) != "1" {
		b.Setenv(pyenv.UnconfinedEnv, "1")
	}
	python, read, why := pyenv.Installation()
	if why != "" {
		b.Skip(why)
	}
	// Confined as a grading child confines it, where the kernel can:
	// through this binary's sandbox.ConfineExecCommand (TestMain).
	if entry := sandbox.ConfineExecEnv(pyenv.Policy(python, read)); entry != "" && sandbox.Confinement().Complete() {
		b.Setenv(pyenv.ConfineEnv, entry)
		b.Log("python3 runs confined")
	}
	goSrc, pySrc := readSource(b, referenceFile), readSource(b, pyReferenceFile)
	scs := refund.Scenarios(refund.Builtin())
	bubble := faultsimtest.BenchBubble(b)
	// Three grades side by side: Go; Python as a grading child runs it,
	// the process on one CPU (Runtime.OneCPU); Python spread over every
	// CPU, as it ran before.
	runtimes := [3]pyrun.Runtime{1: pyRuntime, 2: pyRuntime}
	runtimes[1].OneCPU = true
	var cpu, wall [3][]time.Duration
	var kids []time.Duration
	forks := 0
	for b.Loop() {
		for i := range 3 {
			faultsimtest.FreshHeap()
			start, cpu0, kids0 := time.Now(), faultsim.ProcessCPU(), childrenCPU()
			if i == 0 {
				gradeInterpreted(b, goSrc, scs, bubble, false)
			} else {
				prog, diags := runtimes[i].Check(refund.Kit{}, "refund.py", pySrc)
				if diags != nil {
					b.Fatal(diags)
				}
				rep, err := prog.(faultsim.SelfGrading).GradeProgram(context.Background(), refund.Kit{}, scs, bubble, faultsim.Options{Seeds: benchSeeds})
				if err != nil || rep.Status != faultsim.StatusPass {
					b.Fatalf("%v %s", err, rep.Message)
				}
				forks = prog.(*pyrun.Program).Forks
			}
			wall[i] = append(wall[i], time.Since(start))
			cpu[i] = append(cpu[i], faultsim.ProcessCPU()-cpu0+childrenCPU()-kids0)
			if i == 1 {
				kids = append(kids, childrenCPU()-kids0)
			}
		}
	}
	med := func(d []time.Duration) time.Duration {
		s := slices.Clone(d)
		slices.Sort(s)
		return s[len(s)/2]
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(med(cpu[0])), "go-cpu-ms")
	b.ReportMetric(ms(med(cpu[1])), "python-cpu-ms")
	b.ReportMetric(float64(med(cpu[1]))/float64(med(cpu[0])), "python-cpu-x")
	b.ReportMetric(float64(med(cpu[2]))/float64(med(cpu[0])), "spread-cpu-x")
	b.ReportMetric(ms(med(kids)), "python-processes-cpu-ms")
	b.ReportMetric(ms(med(wall[0])), "go-wall-ms")
	b.ReportMetric(ms(med(wall[1])), "python-wall-ms")
	b.ReportMetric(float64(med(wall[1]))/float64(med(wall[0])), "python-wall-x")
	b.ReportMetric(float64(med(wall[2]))/float64(med(wall[0])), "spread-wall-x")
	b.ReportMetric(float64(forks), "python-processes")
}

// laterPython logs lines that go to the engine with its next message
// (more than one message holds), prints between them, and reads the clock
// with lines still unsent: each line lands in the trace where the code
// wrote it, and the clock it reads is the engine's.
const laterPython = `import asyncio, time
import refundkit
from refundkit import Outcome

async def refund_money(request_id: str) -> Outcome:
    t0 = time.time()
    for i in range(40):
        print("before", i)
        refundkit.log("line %d", i)
    await asyncio.sleep(2)
    refundkit.log("slept")
    refundkit.log("after %.1f", time.time() - t0)
    loop = asyncio.get_running_loop()
    refundkit.log("loop %.1f", loop.time() - t0 + 1_700_000_000)
    record = await refundkit.get_record(request_id)
    if not await refundkit.claim(request_id, 300):
        return Outcome.IN_PROGRESS
    refundkit.log("claimed")
    await refundkit.create_refund(record.charge_id, record.amount, idempotency_key="k-" + request_id, reference=request_id)
    await refundkit.mark_done(request_id)
    refundkit.log("done")
    return Outcome.DONE
`

// TestPythonLogsSentLater: log lines sent with the worker's next message
// reach the trace in the order and at the time the code wrote them, the
// same on a rerun.
func TestPythonLogsSentLater(t *testing.T) {
	needPython(t)
	var picked []faultsim.Scenario
	for _, sc := range refund.Scenarios(refund.Builtin()) {
		if sc.Plan().Name == "success-on-retry" {
			picked = append(picked, sc)
		}
	}
	grade := func() []string {
		rep, err := faultsim.GradeSource(context.Background(), []faultsim.Runtime{pyRuntime}, refund.Kit{}, picked,
			"refund.py", laterPython, faultsimtest.Bubble(t), faultsim.Options{FirstSeed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, sc := range rep.Wire(1).Scenarios {
			for _, ev := range sc.Trace {
				if ev.Actor == "worker-1" {
					lines = append(lines, ev.At+" "+ev.Text)
				}
			}
		}
		return lines
	}
	lines := grade()
	var want []string
	for i := range 40 {
		want = append(want, fmt.Sprintf("+0s line %d", i))
	}
	want = append(want, "+0s sleeps 2s", "+2s slept", "+2s after 2.0", "+2s loop 2.0")
	var got []string
	for _, l := range lines {
		_, text, _ := strings.Cut(l, " ")
		if w, _, _ := strings.Cut(text, " "); w == "line" || w == "sleeps" || w == "slept" || w == "after" || w == "loop" {
			got = append(got, l)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("worker-1's log lines:\n%s\nwant:\n%s\n(its trace:\n%s)", strings.Join(got, "\n"), strings.Join(want, "\n"), strings.Join(lines, "\n"))
	}
	if again := grade(); !slices.Equal(lines, again) {
		t.Error("the trace differs on a rerun")
	}
}
