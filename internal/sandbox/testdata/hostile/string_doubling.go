// Hostile submission: doubles a string until memory runs out.
//
// want-status: error
// want-message: memory limit
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	s := "refund"
	for {
		s += s
	}
	return refundkit.Outcome(s), nil
}
