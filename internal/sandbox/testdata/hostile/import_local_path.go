// Hostile submission: imports "./x", a package from the grader's disk.
//
// want-status: error
// want-message: "\./x".*line 8|line 8.*"\./x"
package refund

import (
	"./x"
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = x.Anything

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
