// Hostile submission: an infinite loop in init, which runs while the submission loads.
//
// want-status: error
// want-message: (CPU time limit|wall-clock time limit)
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var spins int

func init() {
	for {
		spins++
	}
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
