package faultsim_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
)

func TestRunJob(t *testing.T) {
	kits := []faultsim.Kit{toyKit{}}
	job := faultsim.Job{Kit: "tally", ScenariosFile: "s.txt", Scenarios: []byte("one 1\ntwo 2\n"), File: "bump.go", Source: racySource, Seeds: 20}
	rep, err := interpreted.RunJob(context.Background(), kits, job, faultsimtest.Bubble(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 2 || rep.Scenarios[0].Status != faultsim.StatusPass || rep.Scenarios[1].Status != faultsim.StatusFail {
		t.Fatalf("report = %+v", rep.Failed())
	}
	job.Only = []string{"two"}
	if rep, err = interpreted.RunJob(context.Background(), kits, job, faultsimtest.Bubble(t), nil); err != nil || len(rep.Scenarios) != 1 {
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
			_, err := interpreted.RunJob(context.Background(), kits, j, faultsimtest.Bubble(t), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestReferenceFailures(t *testing.T) {
	scs := []faultsim.Scenario{toyScenario{name: "one", workers: 1}, toyScenario{name: "two", workers: 2}}
	got, err := interpreted.ReferenceFailures(context.Background(), toyKit{}, scs, "ref.go", racySource, faultsimtest.Bubble(t), faultsim.Options{Seeds: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got["two"]) != 1 || got["two"][0] != "no-lost-update" {
		t.Fatalf("failures = %v, want two: [no-lost-update]", got)
	}
	if _, err := interpreted.ReferenceFailures(context.Background(), toyKit{}, scs, "ref.go", "package x\n", faultsimtest.Bubble(t), faultsim.Options{}); err == nil {
		t.Fatal("a reference that does not load is no error")
	}
}

func TestServeJobWritesProgressThenTheReport(t *testing.T) {
	kits := []faultsim.Kit{toyKit{}}
	job := faultsim.Job{Kit: "tally", ScenariosFile: "s.txt", Scenarios: []byte("one 1\ntwo 2\n"), File: "bump.go", Source: casSource, Seeds: 3}
	var out strings.Builder
	interpreted.ServeJob(context.Background(), kits, job, faultsimtest.Bubble(t), &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want two scenario lines and a report, got %d: %s", len(lines), out.String())
	}
	var msgs []faultsim.ChildMessage
	for _, l := range lines {
		var m faultsim.ChildMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	if msgs[0].Scenario == nil || msgs[0].Scenario.Name != "one" || msgs[1].Scenario == nil || msgs[2].Report == nil || msgs[2].Report.Status != faultsim.StatusPass {
		t.Fatalf("lines = %s", out.String())
	}
	out.Reset()
	job.Kit = "nope"
	interpreted.ServeJob(context.Background(), kits, job, faultsimtest.Bubble(t), &out)
	var m faultsim.ChildMessage
	if err := json.Unmarshal([]byte(strings.TrimSpace(out.String())), &m); err != nil || !strings.Contains(m.Error, `no kit "nope"`) {
		t.Fatalf("got %q (%v), want one error line naming the kit", out.String(), err)
	}
}
