// Hostile submission: an infinite loop inside RefundMoney.
//
// want-status: error
// want-message: (CPU time limit|wall-clock time limit)
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	n := 0
	for {
		n++
	}
	return refundkit.OutcomeDone, nil
}
