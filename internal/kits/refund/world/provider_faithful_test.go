package world_test

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// TestProviderFaithfulness: the key-length limit, 401s in front of the
// idempotency layer, and replayed successes marked as replayed, as
// Stripe's API v1 documents them (../shared/notes/stripe-idempotency.md).
func TestProviderFaithfulness(t *testing.T) {
	t.Run("a key over 255 characters is refused and nothing is saved", func(t *testing.T) {
		long := strings.Repeat("k", world.MaxKeyLength+1)
		var got []answer
		env := providerWorld(t, nil, func(ctx context.Context, w *world.Worker) {
			send(ctx, w, params(long, 2500), &got)
			send(ctx, w, params(long[:world.MaxKeyLength], 2500), &got)
		})
		e := apiErr(t, got[0].err)
		if e.Status != 400 || e.Param != "idempotency_key" || len(env.Provider().Ledger()) != 1 {
			t.Fatalf("first answer %+v; ledger %d", e, len(env.Provider().Ledger()))
		}
		if got[1].err != nil {
			t.Fatalf("a 255-character key: %v", got[1].err)
		}
	})
	t.Run("a 401 is not saved under the key", func(t *testing.T) {
		var got []answer
		env := providerWorld(t, []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 401}}, func(ctx context.Context, w *world.Worker) {
			send(ctx, w, params("k1", 2500), &got)
			send(ctx, w, params("k1", 2500), &got)
		})
		if e := apiErr(t, got[0].err); e.Status != 401 || e.Replayed {
			t.Fatalf("first answer %+v", e)
		}
		if got[1].err != nil || got[1].refund.Replayed || len(env.Provider().Ledger()) != 1 {
			t.Fatalf("the retry after a 401 should run afresh and apply: %+v %v", got[1].refund, got[1].err)
		}
	})
	t.Run("a replayed success says so", func(t *testing.T) {
		var got []answer
		providerWorld(t, nil, func(ctx context.Context, w *world.Worker) {
			send(ctx, w, params("k1", 2500), &got)
			send(ctx, w, params("k1", 2500), &got)
		})
		if got[0].err != nil || got[1].err != nil || got[0].refund.Replayed || !got[1].refund.Replayed || got[0].refund.ID != got[1].refund.ID {
			t.Fatalf("first %+v, repeat %+v", got[0], got[1])
		}
	})
}
