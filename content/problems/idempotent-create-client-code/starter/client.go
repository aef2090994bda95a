package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

// CreatePayment creates the payment for the operation stored under
// operationID, retrying a few times, and records how it went.
func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error) {
	op, err := store.Get(ctx, operationID)
	if err != nil {
		return createapi.Pending, err
	}
	features := vendor.Features()
	for attempt := 1; attempt <= 3; attempt++ {
		req := createapi.Request{Amount: op.Amount, Currency: op.Currency, Payee: op.Payee, Memo: op.Memo}
		if features.IdempotencyKeys {
			// Every attempt is idempotent: it has its own key.
			req.IdempotencyKey = fmt.Sprintf("%x", rand.Int63())
		}
		if features.References {
			// Look it up first, so that a retry never creates it twice.
			req.Reference = op.ID
			if found, err := vendor.Search(ctx, req.Reference); err == nil && len(found) > 0 {
				return createapi.Created, store.Finish(ctx, op.ID, createapi.Created, found[0].ID, "")
			}
		}
		payment, err := vendor.Create(ctx, req)
		if err == nil {
			return createapi.Created, store.Finish(ctx, op.ID, createapi.Created, payment.ID, "")
		}
		var httpErr *createapi.HTTPError
		if errors.As(err, &httpErr) && httpErr.Status >= 400 && httpErr.Status < 500 && httpErr.Status != 429 {
			// The vendor said no.
			return createapi.Failed, store.Finish(ctx, op.ID, createapi.Failed, "", err.Error())
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	return createapi.Failed, store.Finish(ctx, op.ID, createapi.Failed, "", "gave up after 3 attempts")
}
