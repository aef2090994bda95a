// Hostile submission: imports "io/ioutil", which reads files.
//
// want-status: error
// want-message: import "io/ioutil" is not allowed.*line 9|line 9.*"io/ioutil"
package refund

import (
	"context"
	"io/ioutil"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = ioutil.ReadFile

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
