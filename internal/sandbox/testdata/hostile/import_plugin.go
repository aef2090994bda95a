// Hostile submission: imports "plugin", which loads compiled code.
//
// want-status: error
// want-message: import "plugin" is not allowed.*line 9|line 9.*"plugin"
package refund

import (
	"context"
	"plugin"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = plugin.Open

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
