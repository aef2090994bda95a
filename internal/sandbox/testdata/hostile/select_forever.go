// Hostile submission: an empty select, which blocks forever.
//
// want-status: fail
// want-message: (did not return|deadlock|durably blocked|never returned)
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	select {}
}
