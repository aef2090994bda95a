// Hostile submission: imports "syscall", which makes raw system calls.
//
// want-status: error
// want-message: import "syscall" is not allowed.*line 9|line 9.*"syscall"
package refund

import (
	"context"
	"syscall"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = syscall.Getpid

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
