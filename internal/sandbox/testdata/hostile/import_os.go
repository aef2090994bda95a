// Hostile submission: imports "os", which reads the file system or exits the process.
//
// want-status: error
// want-message: import "os" is not allowed.*line 9|line 9.*"os"
package refund

import (
	"context"
	"os"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = os.Getpid

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
