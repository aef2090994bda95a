package web

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSustainedGrades grades the reference solution through the web
// again and again, from 6 people at 6 addresses (each pressing Grade as
// soon as their last report came, or after the Retry-After of a refusal),
// until FAULTLINE_BENCH_GRADES reports (default 1500) have come back, on
// one server. It reports the system errors among them (the target is 0),
// the other endings, the grades a minute, and how often the server logged
// a run taken over by another instance (there is none: it is alone).
//
//	go test ./internal/web -run '^$' -bench SustainedGrades -benchtime 1x
func BenchmarkSustainedGrades(b *testing.B) {
	const people = 6
	total := 1500
	if v := os.Getenv("FAULTLINE_BENCH_GRADES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("FAULTLINE_BENCH_GRADES=%q: want a count", v)
		}
		total = n
	}
	bin := buildServer(b)
	code := referenceSolution(b)
	var sysErrors, failed, busy, graded, takenOver int64
	var elapsed time.Duration
	for b.Loop() {
		srv, stop := startServerFrom(b, bin)
		ctx, cancel := context.WithCancel(context.Background())
		var left atomic.Int64
		left.Store(int64(total))
		var nSys, nFailed, nBusy, nGraded atomic.Int64
		var mu sync.Mutex
		var firstErrors []string
		t0 := time.Now()
		var wg sync.WaitGroup
		for i := range people {
			client := newUser(fmt.Sprintf("127.0.4.%d", i+1))
			wg.Go(func() {
				for left.Add(-1) >= 0 {
					t, err := srv.gradeAs(ctx, client, code)
					switch {
					case err != nil:
						nFailed.Add(1)
						mu.Lock()
						if len(firstErrors) < 3 {
							firstErrors = append(firstErrors, err.Error())
						}
						mu.Unlock()
					case t.final == "busy":
						nBusy.Add(1)
						left.Add(1) // a refusal is not a grade: press again
						sleepCtx(ctx, time.Duration(max(t.retryAfter, 1))*time.Second)
					case t.final == "system-error":
						nSys.Add(1)
					case t.final == "report" && t.verdict == "pass":
						nGraded.Add(1)
					default:
						nFailed.Add(1)
						mu.Lock()
						if len(firstErrors) < 3 {
							firstErrors = append(firstErrors, fmt.Sprintf("ended %s %s", t.final, t.verdict))
						}
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		elapsed += time.Since(t0)
		cancel()
		takenOver += int64(strings.Count(srv.logs.String(), "taken over by another instance"))
		stop()
		for _, e := range firstErrors {
			b.Logf("a grade failed: %s", e)
		}
		sysErrors, failed, busy, graded = sysErrors+nSys.Load(), failed+nFailed.Load(), busy+nBusy.Load(), graded+nGraded.Load()
	}
	n := float64(b.N)
	b.ReportMetric(float64(sysErrors)/n, "system-errors")
	b.ReportMetric(float64(failed)/n, "other-failures")
	b.ReportMetric(float64(graded)/n, "reports")
	b.ReportMetric(float64(busy)/n, "busy-answers")
	b.ReportMetric(float64(takenOver)/n, "taken-over-logs")
	b.ReportMetric(float64(graded)/elapsed.Minutes(), "grades/min")
}
