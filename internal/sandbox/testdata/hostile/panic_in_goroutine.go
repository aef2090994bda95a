// Hostile submission: a panic in a goroutine it starts, which no recover can catch.
//
// want-status: error
// want-message: crash.*panic.*refund worker exploded
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	done := make(chan struct{})
	go func() {
		panic("refund worker exploded")
		close(done)
	}()
	<-done
	return refundkit.OutcomeDone, nil
}
