// Hostile submission: imports "net/http", which calls out over HTTP.
//
// want-status: error
// want-message: import "net/http" is not allowed.*line 9|line 9.*"net/http"
package refund

import (
	"context"
	"net/http"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = http.Get

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
