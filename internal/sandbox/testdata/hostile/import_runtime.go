// Hostile submission: imports "runtime", which changes the runtime (GOMAXPROCS, GC).
//
// want-status: error
// want-message: import "runtime" is not allowed.*line 9|line 9.*"runtime"
package refund

import (
	"context"
	"runtime"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = runtime.NumGoroutine

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
