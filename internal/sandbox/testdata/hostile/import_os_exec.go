// Hostile submission: imports "os/exec", which runs another program.
//
// want-status: error
// want-message: import "os/exec" is not allowed.*line 9|line 9.*"os/exec"
package refund

import (
	"context"
	"os/exec"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = exec.Command

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
