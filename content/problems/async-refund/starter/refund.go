// Package refund processes stored refund requests.
//
// RefundMoney loads the request with the given id, asks the payment provider
// to refund its amount (up to three attempts), then records that it is done.
package refund

import (
	"context"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// RefundMoney refunds the request stored under requestID, trying the
// provider up to three times, and records the refund as done.
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
