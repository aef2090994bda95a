// Hostile submission: declares RefundMoney with the wrong signature.
//
// want-status: error
// want-message: RefundMoney.*(signature|func\(ctx context\.Context, requestID string\))
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = context.Background

func RefundMoney(requestID string) error {
	return nil
}

var _ refundkit.Outcome
