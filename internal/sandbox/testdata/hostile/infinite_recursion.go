// Hostile submission: unbounded recursion.
//
// want-status: error
// want-message: (memory limit|stack overflow|stack exceeds)
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func depth(n int) int {
	return depth(n+1) + 1
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	depth(0)
	return refundkit.OutcomeDone, nil
}
