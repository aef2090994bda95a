// Hostile submission: prints 200 KB, past the 64 KiB output cap, before returning.
//
// want-status: (fail|error)
// want-message: (?i)output.*truncated|truncated.*output
package refund

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	line := strings.Repeat("refund refund refund ", 50)
	for i := 0; i < 200; i++ {
		fmt.Println(i, line)
	}
	return refundkit.OutcomeDone, nil
}
