// Hostile submission: starts goroutines without end, each blocked forever.
//
// want-status: error
// want-message: (memory limit|CPU time limit|wall-clock time limit)
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	block := make(chan struct{})
	for {
		go func() {
			<-block
		}()
	}
	return refundkit.OutcomeDone, nil
}
