// Hostile submission: does not parse: a missing comma in a return statement.
//
// want-status: error
// want-message: line 14
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone nil
}
