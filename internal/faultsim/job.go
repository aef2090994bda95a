//go:build !nointerp

package faultsim

import (
	"context"
	"fmt"
)

// RunJob grades job.Source interpreted with the kit it names, among kits.
// A job naming a kit or a scenario that is not there, or scenarios that do
// not parse, is an error: the content or the parent is wrong, not the
// submission.
func RunJob(ctx context.Context, kits []Kit, job Job, b Bubble, progress func(ScenarioResult)) (*Report, error) {
	k, err := jobKit(kits, job)
	if err != nil {
		return nil, err
	}
	scenarios, err := jobScenarios(k, job)
	if err != nil {
		return nil, err
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
