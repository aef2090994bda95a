package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// GradeSource grades source interpreted, for the kit's tests. Only tests
// have it: the kit's own code links no interpreter, since the native
// referee's program links the kit.
func GradeSource(ctx context.Context, file, source string, scenarios []faultsim.Scenario, b faultsim.Bubble, opt faultsim.Options) (*gradewire.Report, error) {
	rep, err := interpreted.GradeSource(ctx, Kit{}, scenarios, file, source, b, opt)
	if err != nil {
		return nil, err
	}
	return rep.Wire(opt.FirstSeed), nil
}
