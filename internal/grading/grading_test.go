package grading

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

func TestStreamReadsTheChildsLines(t *testing.T) {
	tests := []struct {
		name      string
		lines     []string
		finished  int
		report    bool
		childErr  string
		wantBreak bool
		scenarios int // in the report
		stopped   sandbox.Ending
	}{
		{name: "progress then report", lines: []string{`{"scenario":{"name":"a","status":"pass"}}`, `{"scenario":{"name":"b","status":"fail"}}`, `{"report":{"kit":"k","status":"fail"}}`}, finished: 2, report: true},
		{name: "an error from the child", lines: []string{`{"error":"faultsim: no kit \"x\""}`}, childErr: `faultsim: no kit "x"`},
		{name: "not the protocol", lines: []string{`PASS`}, wantBreak: true},
		// The report's scenarios went ahead of it (gradewire's Streamed).
		{name: "progress then a streamed report", lines: []string{`{"scenario":{"name":"a","status":"pass"}}`, `{"scenario":{"name":"b","status":"fail"}}`, `{"report":{"kit":"k","status":"fail","scenarios":[]},"streamed":2}`},
			finished: 2, report: true, scenarios: 2},
		{name: "a streamed report counting more than came", lines: []string{`{"scenario":{"name":"a","status":"pass"}}`, `{"report":{"kit":"k","status":"fail","scenarios":[]},"streamed":2}`},
			finished: 1, wantBreak: true},
		// A Python lane ran into the CPU time limit: the child stops.
		{name: "progress then stopped at a limit", lines: []string{`{"scenario":{"name":"a","status":"pass"}}`, `{"stopped":"cpu-time"}`}, finished: 1, stopped: sandbox.EndCPUTime},
		{name: "stopped at a limit no process of the child can meet", lines: []string{`{"stopped":"wall-time"}`}, wantBreak: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []string
			st := resultStream{progress: func(s gradewire.ScenarioReport) { seen = append(seen, s.Name) }}
			var broke error
			for _, l := range tt.lines {
				if err := st.receive([]byte(l)); err != nil {
					broke = err
				}
			}
			if (broke != nil) != tt.wantBreak {
				t.Fatalf("the lines broke the protocol: %v", broke)
			}
			report, childErr, finished, _ := st.result()
			if len(finished) != tt.finished || len(seen) != tt.finished || (report != nil) != tt.report || childErr != tt.childErr {
				t.Errorf("finished %d (progress %v), report %v, error %q", len(finished), seen, report != nil, childErr)
			}
			if got := st.stoppedAt(); got != tt.stopped {
				t.Errorf("stopped at %q, want %q", got, tt.stopped)
			}
			if report != nil && len(report.Scenarios) != tt.scenarios {
				t.Errorf("the report has %d scenarios, want %d", len(report.Scenarios), tt.scenarios)
			}
		})
	}
}

func TestWhereNamesTheRunningScenario(t *testing.T) {
	done := func(n int) []gradewire.ScenarioReport { return make([]gradewire.ScenarioReport, n) }
	tests := []struct {
		order    []string
		finished int
		want     string
	}{
		{[]string{"a", "b", "c"}, 0, `the first scenario, "a"`},
		{[]string{"a", "b", "c"}, 1, `in scenario "b" (1 of 3 scenarios had finished)`},
		{[]string{"a", "b"}, 2, "after its last scenario"},
		{nil, 0, "running its first scenario"},
		{nil, 2, "after 2 scenarios had finished"},
	}
	for _, tt := range tests {
		if got := where(tt.order, done(tt.finished)); !strings.Contains(got, tt.want) {
			t.Errorf("where(%v, %d finished) = %q; want it to say %q", tt.order, tt.finished, got, tt.want)
		}
	}
}

// fakeContent is a Problems of a few problems.
type fakeContent map[string]*problems.Problem

func (c fakeContent) Problem(slug string) (*problems.Problem, bool) { p, ok := c[slug]; return p, ok }

func TestDispatcherPlans(t *testing.T) {
	kit := &problems.Problem{Slug: "kit-one", Code: &problems.Code{Kit: "k", ScenariosPath: "problems/kit-one/scenarios.yaml",
		ScenarioNames: []string{"a", "b", "c"}, CheckScenarios: []string{"b"}}}
	plain := &problems.Problem{Slug: "no-kit", Code: &problems.Code{}}
	refund := &problems.Problem{Slug: "refund-one", Code: &problems.Code{Kit: "refund", ScenariosPath: "problems/refund-one/scenarios.yaml",
		ScenarioNames: []string{"x", "y"}, CheckScenarios: []string{"x"}}}
	d := &Dispatcher{Content: fakeContent{"kit-one": kit, "no-kit": plain, "refund-one": refund}}
	tests := []struct {
		problem string
		want    Plan
		ok      bool
	}{
		{"kit-one", Plan{Scenarios: []string{"a", "b", "c"}, Check: []string{"b"}}, true},
		{"refund-one", Plan{Scenarios: []string{"x", "y"}, Check: []string{"x"}}, true},
		{"no-kit", Plan{}, false},
		{"nothing", Plan{}, false},
	}
	for _, tt := range tests {
		got, ok := d.Plan(tt.problem)
		if ok != tt.ok || strings.Join(got.Scenarios, ",") != strings.Join(tt.want.Scenarios, ",") || strings.Join(got.Check, ",") != strings.Join(tt.want.Check, ",") {
			t.Errorf("Plan(%q) = %+v, %v; want %+v, %v", tt.problem, got, ok, tt.want, tt.ok)
		}
	}
}

func TestKitJobCarriesTheScenariosFile(t *testing.T) {
	code := &problems.Code{Kit: "k", StarterPath: "problems/p/starter/client.go", ScenariosPath: "problems/p/scenarios.yaml", Scenarios: "kit: k\n"}
	job := KitJob(code, "package x", 7, []string{"b"})
	if job.Kit != "k" || job.File != "client.go" || job.ScenariosFile != code.ScenariosPath || string(job.Scenarios) != code.Scenarios ||
		job.Source != "package x" || job.FirstSeed != 7 || strings.Join(job.Only, ",") != "b" {
		t.Errorf("KitJob = %+v", job)
	}
}

func TestRefusalsNeedNoChild(t *testing.T) {
	// A runner that cannot start: none of these may reach it.
	svc := New(sandbox.NewPool(&sandbox.Runner{Executable: "/nonexistent"}, 1, 0), nil)
	huge := strings.Repeat("x", gradewire.MaxSourceBytes+1)
	rep, err := svc.GradeKit(context.Background(), nil, gradewire.Job{Kit: "k", Source: huge}, nil, nil)
	if err != nil || rep.Status != gradewire.StatusError || !strings.Contains(rep.Message, "source too large") {
		t.Errorf("a huge kit source: %+v, %v", rep, err)
	}
	rep, err = svc.GradeKit(context.Background(), nil, gradewire.Job{Kit: "refund", Source: huge, FirstSeed: 3}, nil, nil)
	if err != nil || rep.Status != gradewire.StatusError || rep.Kit != "refund" || rep.Seed != 3 || !strings.Contains(rep.Message, "source too large") {
		t.Errorf("a huge refund source: %+v, %v", rep, err)
	}
	if _, err := svc.GradeKit(context.Background(), nil, gradewire.Job{Source: "package x"}, nil, nil); err == nil {
		t.Error("a job naming no kit was graded")
	}
	d := &Dispatcher{Service: svc, Content: fakeContent{}}
	if _, err := d.GradeAdmitted(context.Background(), nil, Request{Problem: "nothing"}, nil); err == nil || errors.Is(err, sandbox.ErrBusy) {
		t.Errorf("a problem nothing grades: %v", err)
	}
}

// The runner passes gradewire.ChildCommand; the grader's child still
// names its mode itself, so the two must stay one word.
func TestChildCommandIsTheGradersMode(t *testing.T) {
	r := NewChildRunner(sandbox.Limits{}, nil)
	if got := r.Args; len(got) != 1 || got[0] != gradewire.ChildCommand {
		t.Errorf("the child runner passes %q; want [%q]", got, gradewire.ChildCommand)
	}
	if want := "GOGC=1600"; len(r.Env) != 1 || r.Env[0] != want {
		t.Errorf("the child's added environment is %q; want [%q]", r.Env, want)
	}
}
