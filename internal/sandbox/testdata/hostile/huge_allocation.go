// Hostile submission: asks for a terabyte at once.
//
// want-status: error
// want-message: memory limit
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var keep []byte

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	keep = make([]byte, 1<<40)
	return refundkit.OutcomeDone, nil
}
