// Hostile submission: writes one map from several goroutines at once.
//
// want-status: error
// want-message: (concurrent map|CPU time limit|wall-clock time limit)
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	seen := map[int]int{}
	for g := 0; g < 4; g++ {
		go func() {
			for i := 0; ; i++ {
				seen[i%64] = i
			}
		}()
	}
	for i := 0; ; i++ {
		seen[i%64] = -i
	}
	return refundkit.OutcomeDone, nil
}
