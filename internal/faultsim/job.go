//go:build !nointerp

package faultsim

import (
	"context"
	"fmt"
	"slices"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// Job is one grade as the parent sends it to the grading child (the wire
// contract, internal/gradewire).
type Job = gradewire.Job

// RunJob grades job.Source interpreted with the kit it names, among kits.
// A job naming a kit or a scenario that is not there, or scenarios that do
// not parse, is an error: the content or the parent is wrong, not the
// submission.
func RunJob(ctx context.Context, kits []Kit, job Job, b Bubble, progress func(ScenarioResult)) (*Report, error) {
	i := slices.IndexFunc(kits, func(k Kit) bool { return k.Name() == job.Kit })
	if i < 0 {
		var names []string
		for _, k := range kits {
			names = append(names, k.Name())
		}
		return nil, fmt.Errorf("faultsim: no kit %q (have %v)", job.Kit, names)
	}
	k := kits[i]
	scenarios, err := k.ParseScenarios(job.ScenariosFile, job.Scenarios)
	if err != nil {
		return nil, err
	}
	if len(job.Only) > 0 {
		var picked []Scenario
		for _, name := range job.Only {
			j := slices.IndexFunc(scenarios, func(s Scenario) bool { return s.Plan().Name == name })
			if j < 0 {
				return nil, fmt.Errorf("faultsim: %s has no scenario %q", job.ScenariosFile, name)
			}
			picked = append(picked, scenarios[j])
		}
		scenarios = picked
	}
	return GradeSource(ctx, k, scenarios, job.File, job.Source, b, Options{Seeds: job.Seeds, FirstSeed: job.FirstSeed, Lanes: job.Lanes, Progress: progress})
}

// ReferenceFailures grades a problem's reference and returns, per scenario
// it fails, the ids of the invariants that failed: a scenario no correct
// solution can pass is a content error, and lint reports it at the
// scenario's line. A reference that does not load is an error.
func ReferenceFailures(ctx context.Context, k Kit, scenarios []Scenario, file, source string, b Bubble, opt Options) (map[string][]string, error) {
	rep, err := GradeSource(ctx, k, scenarios, file, source, b, opt)
	if err != nil {
		return nil, err
	}
	if rep.Status == StatusError {
		return nil, fmt.Errorf("faultsim: the reference %s does not load: %s", file, rep.Message)
	}
	return rep.Failed(), nil
}
