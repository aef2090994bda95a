// From: correct/type_switch.go
// Drops: the doubt a needs_check record carries once the look-up finds nothing: when every send then fails to connect, it records failed, though a request of the earlier run, still running, lands. (A refusal under the same key after that is proof, by P7 and P2; a connection error is not.)
// defect: unknown-as-failed
package refund

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

func RefundMoney(ctx context.Context, requestID string) (outcome refundkit.Outcome, err error) {
	rec, err := refundkit.GetRecord(ctx, requestID)
	if err != nil {
		return "", fmt.Errorf("refund %s: %w", requestID, err)
	}
	if rec.Status == refundkit.StatusDone {
		return refundkit.OutcomeDone, nil
	}
	ok, err := refundkit.Claim(ctx, requestID, 100*time.Second)
	if err != nil {
		return "", err
	}
	if !ok {
		rec, err = refundkit.GetRecord(ctx, requestID)
		if err != nil {
			return "", err
		}
		switch rec.Status {
		case refundkit.StatusDone:
			outcome = refundkit.OutcomeDone
		case refundkit.StatusFailed:
			outcome = refundkit.OutcomeFailed
		case refundkit.StatusNeedsCheck:
			outcome = refundkit.OutcomeUnknown
		default:
			outcome = refundkit.OutcomeInProgress
		}
		return outcome, nil
	}
	defer func() {
		if outcome == "" {
			refundkit.MarkNeedsCheck(context.WithoutCancel(ctx), requestID, "no result: "+fmt.Sprint(err))
		}
	}()

	doubtful := rec.Status == refundkit.StatusProcessing || rec.Status == refundkit.StatusNeedsCheck
	if doubtful {
		have, err := find(ctx, rec)
		if err != nil {
			return write(ctx, requestID, refundkit.StatusNeedsCheck, "look-up failed")
		}
		if have != nil {
			if have.Amount == rec.Amount {
				return write(ctx, requestID, refundkit.StatusDone, "")
			}
			return write(ctx, requestID, refundkit.StatusNeedsCheck, "other amount")
		}
		doubtful = false // nothing found: nothing of ours landed
	}

	p := refundkit.RefundParams{Charge: rec.ChargeID, Amount: rec.Amount, IdempotencyKey: requestID, Reference: requestID}
	prev := 300 * time.Millisecond
	var lastErr error
	stop := false
	for try := 1; try <= 3 && !stop; try++ {
		_, sendErr := refundkit.CreateRefund(ctx, p)
		if sendErr == nil {
			return write(ctx, requestID, refundkit.StatusDone, "")
		}
		lastErr = sendErr
		refundkit.Logf(ctx, "try %d: %v", try, sendErr)
		var retryAfter time.Duration
		switch e := sendErr.(type) {
		case *refundkit.ConnectionError:
			// nothing left the process
		case *refundkit.TimeoutError:
			doubtful = true
		case *refundkit.APIError:
			retryAfter = e.RetryAfter
			switch {
			case e.Status == 409:
				doubtful = true
			case e.Status == 429:
			case e.Code == "charge_already_refunded":
				return write(ctx, requestID, refundkit.StatusDone, "")
			case e.Status == 400 && e.Type == "idempotency_error":
				return write(ctx, requestID, refundkit.StatusNeedsCheck, e.Error())
			case e.Status >= 400 && e.Status < 500:
				if doubtful {
					return write(ctx, requestID, refundkit.StatusNeedsCheck, "refused after a doubtful try: "+e.Error())
				}
				return write(ctx, requestID, refundkit.StatusFailed, e.Error())
			default:
				doubtful = true
				stop = e.Replayed
			}
		default:
			doubtful = true
		}
		if try < 3 && !stop {
			next := 300*time.Millisecond + time.Duration(rand.Int63n(int64(prev*3-300*time.Millisecond)))
			if next > 10*time.Second {
				next = 10 * time.Second
			}
			prev = next
			if retryAfter > next {
				next = retryAfter
			}
			time.Sleep(next)
		}
	}
	if !doubtful {
		return write(ctx, requestID, refundkit.StatusFailed, "unreachable: "+lastErr.Error())
	}
	if have, err := find(ctx, rec); err == nil && have != nil && have.Amount == rec.Amount {
		return write(ctx, requestID, refundkit.StatusDone, "")
	}
	return write(ctx, requestID, refundkit.StatusNeedsCheck, "unknown: "+lastErr.Error())
}

func find(ctx context.Context, rec *refundkit.Record) (*refundkit.ProviderRefund, error) {
	refunds, err := refundkit.ListRefunds(ctx, rec.ChargeID)
	if err != nil {
		return nil, err
	}
	for i := range refunds {
		if refunds[i].Reference == rec.RequestID {
			return &refunds[i], nil
		}
	}
	return nil, nil
}

func write(ctx context.Context, id string, st refundkit.Status, why string) (refundkit.Outcome, error) {
	c := context.WithoutCancel(ctx)
	switch st {
	case refundkit.StatusDone:
		if err := refundkit.MarkDone(c, id); err != nil {
			return "", err
		}
		return refundkit.OutcomeDone, nil
	case refundkit.StatusFailed:
		if err := refundkit.MarkFailed(c, id, why); err != nil {
			return "", err
		}
		return refundkit.OutcomeFailed, nil
	}
	if err := refundkit.MarkNeedsCheck(c, id, why); err != nil {
		return "", errors.New("record needs_check: " + err.Error())
	}
	return refundkit.OutcomeUnknown, nil
}
