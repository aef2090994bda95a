package refund_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// TestTwinsChangeNoReport grades every submission of the differential
// corpus twice through the interpreter, once making every run
// (Options.EveryRun) and once letting the engine skip a run whose seed
// would repeat a twin's schedule (faultsim's twins.go): the reports must
// be byte for byte the same. Refund's world keeps what it judged per run,
// and a skipped run shares its twin's world; so this is what shows the
// kit reads a run's own seed and crash point, never its world's.
func TestTwinsChangeNoReport(t *testing.T) {
	subs := diffCorpus(t)
	if raceEnabled || testing.Short() {
		var sample []string
		for _, s := range subs {
			if s.Name == "starter" || s.Name == "reference" || strings.HasPrefix(s.Name, "broken/fixed") || strings.HasPrefix(s.Name, "correct/state-") {
				sample = append(sample, s.Name)
			}
		}
		subs = subs[:0:0]
		for _, s := range diffCorpus(t) {
			for _, n := range sample {
				if s.Name == n {
					subs = append(subs, s)
				}
			}
		}
	}
	scs := scenariosNamed(t)
	saved, runs := 0, 0
	for _, s := range subs {
		t.Run(s.Name, func(t *testing.T) {
			var reports [2]string
			for i, every := range []bool{true, false} {
				rep, err := interpreted.GradeSource(t.Context(), refund.Kit{}, scs, s.Filename, s.Source, faultsimtest.Bubble(t),
					faultsim.Options{FirstSeed: 1, EveryRun: every})
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.MarshalIndent(rep, "", " ")
				if err != nil {
					t.Fatal(err)
				}
				reports[i] = string(b)
				if !every {
					for _, sr := range rep.Scenarios {
						saved, runs = saved+sr.Repeated, runs+sr.Runs
					}
				}
			}
			if reports[0] != reports[1] {
				t.Errorf("skipping twins' repeats changed the report:\n%s", lineDiff(reports[0], reports[1]))
			}
		})
	}
	t.Logf("%d submissions: %d of %d runs repeated a twin and were not made", len(subs), saved, runs)
	if saved == 0 {
		t.Error("no run repeated a twin: the test compares nothing")
	}
}
