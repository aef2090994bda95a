package interpreted

import (
	"context"
	"fmt"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// RunJob grades job.Source with the kit it names, among kits, in the
// runtime of its file's language: Go interpreted (Runtime), or one of rts
// (Python). A job naming a kit or a scenario that is not there, or
// scenarios that do not parse, is an error: the content or the parent is
// wrong, not the submission.
func RunJob(ctx context.Context, kits []faultsim.Kit, job faultsim.Job, b faultsim.Bubble, progress func(faultsim.ScenarioResult), rts ...faultsim.Runtime) (*faultsim.Report, error) {
	k, err := faultsim.JobKit(kits, job)
	if err != nil {
		return nil, err
	}
	scenarios, err := faultsim.JobScenarios(k, job)
	if err != nil {
		return nil, err
	}
	if faultsim.LangOf(job.File) == faultsim.LangGo {
		// The default route, as before runtimes were a choice.
		return GradeSource(ctx, k, scenarios, job.File, job.Source, b, faultsim.JobOptions(job, progress))
	}
	return faultsim.GradeSource(ctx, faultsim.PlacedOn(rts, job.CPU), k, scenarios, job.File, job.Source, b, faultsim.JobOptions(job, progress))
}

// ReferenceFailures grades a problem's reference and returns, per scenario
// it fails, the ids of the invariants that failed: a scenario no correct
// solution can pass is a content error, and lint reports it at the
// scenario's line. A reference that does not load is an error.
func ReferenceFailures(ctx context.Context, k faultsim.Kit, scenarios []faultsim.Scenario, file, source string, b faultsim.Bubble, opt faultsim.Options) (map[string][]string, error) {
	rep, err := GradeSource(ctx, k, scenarios, file, source, b, opt)
	if err != nil {
		return nil, err
	}
	if rep.Status == faultsim.StatusError {
		return nil, fmt.Errorf("faultsim: the reference %s does not load: %s", file, rep.Message)
	}
	return rep.Failed(), nil
}
