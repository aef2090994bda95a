// Hostile submission: sleeps a thousand hours, again and again.
//
// want-status: fail
// want-message: (did not return|deadlock|durably blocked|never returned)
package refund

import (
	"context"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	for {
		time.Sleep(1000 * time.Hour)
	}
}
