// Hostile submission: has no RefundMoney at all.
//
// want-status: error
// want-message: RefundMoney
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMony(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
