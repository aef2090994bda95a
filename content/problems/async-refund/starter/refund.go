// Package refund processes stored refund requests.
//
// RefundMoney fetches the stored request by its id, has the payment provider
// send back its amount (three tries at most), and then marks the request as
// done in the database.
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// RefundMoney refunds the stored request requestID and marks it done.
func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {
	rec, _ := refundkit.GetRecord(ctx, requestID)
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}

	for i := 0; i < 3; i++ {
		_, err := refundkit.CreateRefund(ctx, refundkit.RefundParams{
			Charge:    rec.ChargeID,
			Amount:    rec.Amount,
			Reference: rec.RequestID,
		})
		if err != nil {
			continue
		}
		break
	}

	if err := refundkit.MarkDone(ctx, requestID); err != nil {
		return "", err
	}
	return refundkit.OutcomeDone, nil
}
