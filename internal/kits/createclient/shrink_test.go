package createclient_test

import (
	"fmt"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
)

// TestStarterMinimalRuns: every failing scenario of the starter's report
// has a minimal run that breaks an invariant the scenario broke, smaller
// than the shown run (cut where it broke, where its invariant is one a
// prefix can break), or found to be the shown run itself where nothing
// can go, told in three to six sentences, and the same from a second
// grade with the same seed (faultsimtest.CheckMinimalRuns, which the
// refund starter's test uses too).
func TestStarterMinimalRuns(t *testing.T) {
	for _, seed := range []int64{1, 3} {
		t.Run(fmt.Sprintf("seed-%d", seed), func(t *testing.T) {
			opt := faultsim.Options{Seeds: 3, FirstSeed: seed}
			rep := gradeSource(t, problemDir+"/starter/client.go", opt).Wire(seed)
			again := gradeSource(t, problemDir+"/starter/client.go", opt).Wire(seed)
			replay := func(t *testing.T, v gradewire.Variation) *gradewire.Report {
				o := opt
				o.Variation = &v
				return gradeScenarios(t, problemDir+"/starter/client.go", scenariosNamed(t, v.Scenario), o).Wire(seed)
			}
			failing, same := faultsimtest.CheckMinimalRuns(t, createclient.Kit{}, rep, again, replay)
			t.Logf("%d failing scenarios, %d already minimal", failing, same)
		})
	}
}
