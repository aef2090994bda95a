// Hostile submission: defers inside a loop, which the interpreter does not
// run faithfully, so it is refused at its line.
//
// want-status: error
// want-message: (?i)line 16.*defer|defer.*line 16
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	for i := 0; i < 3; i++ {
		defer println(i)
	}
	return refundkit.OutcomeDone, nil
}
