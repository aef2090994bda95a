package faultsim_test

import (
	"encoding/json"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
)

const drawingSource = `package tally

import (
	"context"
	"math/rand"
	"time"

	"faultline.test/tally"
)

func Bump(ctx context.Context, c tally.Counter) error {
	time.Sleep(time.Duration(rand.Intn(3)) * time.Millisecond)
	v := c.Get(ctx)
	c.Set(ctx, v+1)
	return nil
}
`

// TestTwinsLeaveTheReportAsItWas grades with and without twins (see
// twins.go): every report must be byte for byte the same, and where the
// code is decided by its schedule alone, runs must have been saved.
func TestTwinsLeaveTheReportAsItWas(t *testing.T) {
	tests := []struct {
		name  string
		prog  func() faultsim.Program
		sc    toyScenario
		saved bool
	}{
		{"racy, interpreted", func() faultsim.Program { return interpretedProgram(t, racySource) }, toyScenario{name: "two", workers: 2}, true},
		{"compare-and-set, interpreted", func() faultsim.Program { return interpretedProgram(t, casSource) }, toyScenario{name: "two", workers: 2}, true},
		{"with a crash point", func() faultsim.Program { return interpretedProgram(t, casSource) }, toyScenario{name: "crash", workers: 2, crash: true}, true},
		// Each seed draws other numbers: no run repeats another.
		{"drawing random numbers", func() faultsim.Program { return interpretedProgram(t, drawingSource) }, toyScenario{name: "two", workers: 2}, false},
		// Native code draws from math/rand unseen: every run is made.
		{"native", func() faultsim.Program { return faultsimtest.Native{Entry: casNative} }, toyScenario{name: "two", workers: 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			every := grade(t, tt.prog(), tt.sc, faultsim.Options{Seeds: 40, FirstSeed: 1, EveryRun: true})
			twins := grade(t, tt.prog(), tt.sc, faultsim.Options{Seeds: 40, FirstSeed: 1})
			a, _ := json.Marshal(every)
			b, _ := json.Marshal(twins)
			if string(a) != string(b) {
				t.Fatalf("the reports differ:\nevery run: %s\ntwins:     %s", a, b)
			}
			sr := twins.Scenarios[0]
			if every.Scenarios[0].Repeated != 0 {
				t.Errorf("EveryRun repeated %d runs", every.Scenarios[0].Repeated)
			}
			if saved := sr.Repeated > 0; saved != tt.saved {
				t.Errorf("%d of %d runs repeated a twin, want saved = %v", sr.Repeated, sr.Runs, tt.saved)
			}
			t.Logf("%d of %d runs repeated a twin", sr.Repeated, sr.Runs)
		})
	}
}
