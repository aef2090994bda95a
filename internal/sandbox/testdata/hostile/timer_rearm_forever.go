// Hostile submission: starts a timer that re-arms itself forever.
//
// want-status: (fail|error)
// want-message: (did not return|deadlock|durably blocked|never returned)|(CPU time limit|wall-clock time limit)
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
