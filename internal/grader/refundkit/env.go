package refundkit

import (
	"context"
	"time"
)

// Worker is one invocation's view of a run: the identity that owns claims,
// and the entry point of every harness call. The grader core fills this in.
type Worker struct{}

type workerKey struct{}

// WithWorker returns a context that carries w, for natively compiled runs.
func WithWorker(ctx context.Context, w *Worker) context.Context {
	return context.WithValue(ctx, workerKey{}, w)
}

func workerFrom(ctx context.Context) *Worker {
	w, _ := ctx.Value(workerKey{}).(*Worker)
	if w == nil {
		panic("refundkit: this context does not come from the grader; pass on the ctx RefundMoney was given")
	}
	return w
}

func (w *Worker) GetRecord(ctx context.Context, requestID string) (*Record, error) {
	panic("not implemented")
}
func (w *Worker) Claim(ctx context.Context, requestID string, lease time.Duration) (bool, error) {
	panic("not implemented")
}
func (w *Worker) MarkProcessing(ctx context.Context, requestID string) error {
	panic("not implemented")
}
func (w *Worker) MarkDone(ctx context.Context, requestID string) error { panic("not implemented") }
func (w *Worker) MarkFailed(ctx context.Context, requestID, reason string) error {
	panic("not implemented")
}
func (w *Worker) MarkNeedsCheck(ctx context.Context, requestID, reason string) error {
	panic("not implemented")
}
func (w *Worker) CreateRefund(ctx context.Context, p RefundParams) (*ProviderRefund, error) {
	panic("not implemented")
}
func (w *Worker) ListRefunds(ctx context.Context, charge string) ([]ProviderRefund, error) {
	panic("not implemented")
}
func (w *Worker) Logf(ctx context.Context, format string, args ...any) { panic("not implemented") }
