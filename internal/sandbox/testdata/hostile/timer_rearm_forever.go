// Hostile submission: starts a timer that re-arms itself forever.
// Each firing runs in a goroutine of its own and memory grows with them:
// a plain child reaches the CPU limit first (about 0.5 GiB by then), a
// -race child, whose memory the race detector multiplies, the 2 GiB
// address-space limit. Both are right, as long as the report says which.
//
// want-status: (fail|error)
// want-message: (did not return|deadlock|durably blocked|never returned)|(CPU time limit|wall-clock time limit|ran out of memory)
package refund

import (
	"context"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func rearm() {
	time.AfterFunc(time.Millisecond, rearm)
}

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rearm()
	select {}
}
