// Package refund processes stored refund requests.
//
// RefundMoney loads the refund request with the given id, asks the payment
// provider to refund its amount (making up to three attempts), and then
// records in the database that the refund is done.
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
