//go:build !nointerp

package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// GradeSource grades source interpreted (in the grading child or a test).
// It sits apart from kit.go so that the kit builds without the interpreter
// (-tags nointerp), as the go-build benchmark's native driver does.
func GradeSource(ctx context.Context, file, source string, scenarios []faultsim.Scenario, b faultsim.Bubble, opt faultsim.Options) (*gradewire.Report, error) {
	rep, err := faultsim.GradeSource(ctx, Kit{}, scenarios, file, source, b, opt)
	if err != nil {
		return nil, err
	}
	return rep.Wire(opt.FirstSeed), nil
}
