package createclient_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
)

const problemDir = "../../../content/problems/idempotent-create-client-code"

func loadScenarios(t *testing.T) []faultsim.Scenario {
	t.Helper()
	path := problemDir + "/scenarios.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := createclient.ParseScenarios(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return createclient.Scenarios(list)
}

func gradeNative(t *testing.T, entry createclient.Entry, opt faultsim.Options) *faultsim.Report {
	t.Helper()
	rep, err := faultsim.Grade(context.Background(), createclient.Kit{}, loadScenarios(t), faultsimtest.Native{Entry: entry}, faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func gradeSource(t *testing.T, file string, opt faultsim.Options) *faultsim.Report {
	t.Helper()
	return gradeScenarios(t, file, loadScenarios(t), opt)
}

// scenariosNamed is the scenarios of the problem's file with those names.
func scenariosNamed(t *testing.T, names ...string) []faultsim.Scenario {
	t.Helper()
	var out []faultsim.Scenario
	for _, sc := range loadScenarios(t) {
		if slices.Contains(names, sc.Plan().Name) {
			out = append(out, sc)
		}
	}
	if len(out) != len(names) {
		t.Fatalf("scenarios %v: found %d", names, len(out))
	}
	return out
}

// gradeScenarios grades the source in file against scs.
func gradeScenarios(t *testing.T, file string, scs []faultsim.Scenario, opt faultsim.Options) *faultsim.Report {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := interpreted.GradeSource(context.Background(), createclient.Kit{}, scs, file, string(src), faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
