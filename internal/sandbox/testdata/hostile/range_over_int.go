// Hostile submission: ranges over an int, which the interpreter does not support.
//
// want-status: error
// want-message: (?i)line 15.*range|range.*line 15
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	total := 0
	for i := range 3 {
		total += i
	}
	return refundkit.OutcomeDone, nil
}
