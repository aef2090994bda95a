// Hostile submission: locks a mutex it already holds.
//
// want-status: fail
// want-message: (did not return|deadlock|durably blocked|never returned)
package refund

import (
	"context"
	"sync"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var mu sync.Mutex

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	mu.Lock()
	mu.Lock()
	defer mu.Unlock()
	return refundkit.OutcomeDone, nil
}
