package grading

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// BenchmarkReferee measures what the native referee adds to a Grade of
// the create-client problem: each iteration grades one file through the
// grading child, then (but for "interpreted") through the referee, whose
// build and run are reported as build-ms and run-ms, their sum as
// referee-ms. "warm" builds with a build cache that holds the engine and
// the kits (after the first iteration's, as on a server after its first
// grade or after referee-warm); "cold" starts from an empty cache every
// iteration, as a server's first Grade does (run it with -benchtime=1x).
// The stateful file has package state, so the go tool compiles one copy
// per worker loaded at once rather than one shared copy. bench/referee.sh
// runs it.
func BenchmarkReferee(b *testing.B) {
	f, err := refereeSetup()
	if err != nil {
		b.Fatal(err)
	}
	stateful := strings.Replace(f.code.Reference, "\nfunc CreatePayment(", "\nvar calls int\n\nfunc CreatePayment(", 1)
	stateful = strings.Replace(stateful, "(createapi.Status, error) {\n", "(createapi.Status, error) {\n\tcalls++\n", 1)
	for _, bc := range []struct {
		name, source  string
		referee, cold bool
	}{
		{"interpreted", f.code.Reference, false, false},
		{"warm", f.code.Reference, true, false},
		{"warm-stateful", stateful, true, false},
		{"cold", f.code.Reference, true, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			svc, _, _ := refereeService(b)
			if !bc.referee {
				svc.Referee = nil
			}
			var build, run, total []float64
			for i := 0; b.Loop(); i++ {
				if bc.cold {
					b.StopTimer()
					dir, err := os.MkdirTemp("", "faultline-referee-cold")
					if err != nil {
						b.Fatal(err)
					}
					svc.Referee.CacheDir, svc.Referee.GoCache, svc.Referee.tree = dir, filepath.Join(dir, "gocache"), ""
					b.Cleanup(func() { os.RemoveAll(dir) })
					b.StartTimer()
				}
				// Each iteration's file is new to the go tool, as a
				// candidate's next Grade is.
				job := refereeJob(f, fmt.Sprintf("%s\n// iteration %d of %s\n", bc.source, i, b.Name()), nil)
				job.Seeds = 0 // a Grade's: DefaultSeeds
				rep, err := svc.GradeKit(context.Background(), nil, job, f.code.ScenarioNames, nil)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Status != gradewire.StatusPass {
					b.Fatalf("status %s: %s", rep.Status, rep.Message)
				}
				if bc.referee {
					if rep.Referee == nil || rep.Referee.Outcome != gradewire.RefereeConfirmed {
						b.Fatalf("referee %+v", rep.Referee)
					}
					build = append(build, rep.Referee.BuildMS)
					run = append(run, rep.Referee.RunMS)
					total = append(total, rep.Referee.BuildMS+rep.Referee.RunMS)
				}
			}
			// Medians: a machine shared with other work makes single
			// builds slow now and then.
			if bc.referee {
				b.ReportMetric(median(build), "build-ms")
				b.ReportMetric(median(run), "run-ms")
				b.ReportMetric(median(total), "referee-ms")
				b.ReportMetric(slices.Max(total), "max-referee-ms")
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "grade-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
