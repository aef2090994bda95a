// Hostile submission: imports "reflect", which inspects the harness through reflection.
//
// want-status: error
// want-message: import "reflect" is not allowed.*line 9|line 9.*"reflect"
package refund

import (
	"context"
	"reflect"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

var _ = reflect.TypeOf

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	return refundkit.OutcomeDone, nil
}
