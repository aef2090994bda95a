// Hostile submission: imports "unsafe", which reads arbitrary memory.
//
// want-status: error
// want-message: import "unsafe" is not allowed.*line 9|line 9.*"unsafe"
package refund

import (
	"context"
	"unsafe"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = unsafe.Sizeof(0)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
