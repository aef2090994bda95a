package createclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
)

// Lint checks a scenarios file as an author needs it checked: the schema
// first (ParseScenarios), then that the problem's reference passes every
// scenario, since a scenario no correct client can pass (an expected end
// state nothing reaches, a fault that makes an invariant impossible) is
// the file's error. Every error names file:line. It interprets the
// reference, so only tests have it: the kit's own code links no
// interpreter, since the native referee's program links the kit (the
// server's lint grades the reference in a grading child).
func Lint(ctx context.Context, file string, data []byte, refFile, refSource string, b faultsim.Bubble, seeds int) []error {
	list, err := ParseScenarios(file, data)
	if err != nil {
		return unjoin(err)
	}
	failed, err := interpreted.ReferenceFailures(ctx, Kit{}, Scenarios(list), refFile, refSource, b, faultsim.Options{Seeds: seeds})
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, sc := range list {
		if ids := failed[sc.Name]; len(ids) > 0 {
			errs = append(errs, fmt.Errorf("%s:%d: scenario %q: the reference %s fails it (%s): no correct client could pass it as written",
				file, sc.Line(), sc.Name, refFile, strings.Join(ids, ", ")))
		}
	}
	return errs
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
