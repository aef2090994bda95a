// Hostile submission: imports "net", which opens network connections.
//
// want-status: error
// want-message: import "net" is not allowed.*line 9|line 9.*"net"
package refund

import (
	"context"
	"net"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = net.Dial

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
