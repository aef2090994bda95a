// Hostile submission: keeps every megabyte it allocates.
//
// want-status: error
// want-message: memory limit
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var hoard [][]byte

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	for {
		chunk := make([]byte, 1<<20)
		chunk[0] = 1
		hoard = append(hoard, chunk)
	}
	return refundkit.OutcomeDone, nil
}
