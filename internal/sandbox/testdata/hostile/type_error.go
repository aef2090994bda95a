// Hostile submission: assigns a string to an int.
//
// want-status: error
// want-message: line 14
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	var attempts int = "three"
	_ = attempts
	return refundkit.OutcomeDone, nil
}
