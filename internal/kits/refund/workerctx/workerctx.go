// Package workerctx carries a run's worker in a context, between the fakes
// (internal/kits/refund/world), which put it there, and the harness a
// submission imports (internal/grader/refundkit), whose functions find it
// there. It is a package of its own so that the harness exports only the
// candidate's API: neither the key nor the worker's type is visible to a
// submission, and the harness does not import the fakes (which import it).
package workerctx

import "context"

type key struct{}

// With returns a context that carries w.
func With(ctx context.Context, w any) context.Context { return context.WithValue(ctx, key{}, w) }

// From returns the worker ctx carries, nil if none.
func From(ctx context.Context) any { return ctx.Value(key{}) }
