package faultsim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

func TestRunJob(t *testing.T) {
	kits := []faultsim.Kit{toyKit{}}
	job := faultsim.Job{Kit: "tally", ScenariosFile: "s.txt", Scenarios: []byte("one 1\ntwo 2\n"), File: "bump.go", Source: racySource, Seeds: 20}
	rep, err := faultsim.RunJob(context.Background(), kits, job, faultsim.TestBubble(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 2 || rep.Scenarios[0].Status != faultsim.StatusPass || rep.Scenarios[1].Status != faultsim.StatusFail {
		t.Fatalf("report = %+v", rep.Failed())
	}
	job.Only = []string{"two"}
	if rep, err = faultsim.RunJob(context.Background(), kits, job, faultsim.TestBubble(t)); err != nil || len(rep.Scenarios) != 1 {
		t.Fatalf("only two: %v, %v", err, rep)
	}
	tests := []struct {
		name string
		edit func(j *faultsim.Job)
		want string
	}{
		{"unknown kit", func(j *faultsim.Job) { j.Kit = "refnud" }, `no kit "refnud"`},
		{"unknown scenario", func(j *faultsim.Job) { j.Only = []string{"three"} }, `s.txt has no scenario "three"`},
		{"bad scenarios", func(j *faultsim.Job) { j.Scenarios = []byte("one 1\ntwo x\n") }, "s.txt:2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := job
			tt.edit(&j)
			_, err := faultsim.RunJob(context.Background(), kits, j, faultsim.TestBubble(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReferenceFailures(t *testing.T) {
	scs := []faultsim.Scenario{toyScenario{name: "one", workers: 1}, toyScenario{name: "two", workers: 2}}
	got, err := faultsim.ReferenceFailures(context.Background(), toyKit{}, scs, "ref.go", racySource, faultsim.TestBubble(t), faultsim.Options{Seeds: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got["two"]) != 1 || got["two"][0] != "no-lost-update" {
		t.Fatalf("failures = %v, want two: [no-lost-update]", got)
	}
	if _, err := faultsim.ReferenceFailures(context.Background(), toyKit{}, scs, "ref.go", "package x\n", faultsim.TestBubble(t), faultsim.Options{}); err == nil {
		t.Fatal("a reference that does not load is no error")
	}
}
