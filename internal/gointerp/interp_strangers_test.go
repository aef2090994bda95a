package gointerp_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/kits/refund"
)

// TestStrangersFormsPass grades the correct solutions of
// testdata/strangers (each kit's reference design, written with a form the
// interpreter could not run: min and max, ranges over integers and
// iterators, generics over time.Duration, a lock embedded beside the
// harness's interface) through the kit, interpreted, as a grade does: each
// must pass, as the reference does.
func TestStrangersFormsPass(t *testing.T) {
	if testing.Short() {
		t.Skip("grades whole solutions")
	}
	kits := []struct {
		dir       string
		kit       faultsim.Kit
		scenarios func(t *testing.T) []faultsim.Scenario
	}{
		{"createclient", createclient.Kit{}, func(t *testing.T) []faultsim.Scenario {
			path := "../../content/problems/idempotent-create-client-code/scenarios.yaml"
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			list, err := createclient.ParseScenarios(path, data)
			if err != nil {
				t.Fatal(err)
			}
			return createclient.Scenarios(list)
		}},
		{"refund", refund.Kit{}, func(t *testing.T) []faultsim.Scenario {
			path := "../../content/problems/async-refund/scenarios.yaml"
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			list, err := refund.ParseScenarios(path, data)
			if err != nil {
				t.Fatal(err)
			}
			return refund.Scenarios(list)
		}},
	}
	for _, k := range kits {
		files, err := filepath.Glob(filepath.Join("testdata", "strangers", k.dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no solutions for %s: %v", k.dir, err)
		}
		scenarios := k.scenarios(t)
		for _, file := range files {
			t.Run(k.dir+"/"+filepath.Base(file), func(t *testing.T) {
				src, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := interpreted.GradeSource(context.Background(), k.kit, scenarios, file, string(src), faultsimtest.Bubble(t), faultsim.Options{Seeds: 2})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Status != faultsim.StatusPass {
					t.Errorf("%s: %s %s %v; failed: %v", file, rep.Status, rep.Message, rep.Diagnostics, rep.Failed())
				}
			})
		}
	}
}
