package createclient_test

import (
	"context"
	"os"
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
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := interpreted.GradeSource(context.Background(), createclient.Kit{}, loadScenarios(t), file, string(src), faultsimtest.Bubble(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
