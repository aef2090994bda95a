// Hostile submission: panics in RefundMoney itself.
//
// want-status: fail
// want-message: panic.*refund function gave up
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	panic("refund function gave up")
}
