// Package refundkit is the harness a refund submission imports. It plays the
// roles of the helpers in the original snippet (load the record, call the
// payment provider, mark the record) and adds what a correct version needs:
// an atomic claim with a lease, idempotency keys, reconciliation look-ups and
// typed errors that say what a failure tells you.
//
// It holds only what a submission may use: every export here is the
// candidate's API, by construction. The fakes behind it (a store and a
// Stripe-like provider on a virtual clock) live in
// internal/kits/refund/world, which a submission cannot import; an
// interpreted submission gets these functions bound to its worker, and a
// natively compiled one reaches the worker through the context.
//
// Every error type here is a host type on purpose: yaegi cannot use
// errors.As with interpreted error types, but it can with these.
package refundkit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/kits/refund/workerctx"
)

// Status is the state of a refund record in the database.
type Status string

// Record statuses.
const (
	StatusPending    Status = "pending"
	StatusProcessing Status = "processing"
	StatusDone       Status = "done"
	StatusFailed     Status = "failed"
	StatusNeedsCheck Status = "needs_check" // outcome unknown: a reconciler must look at the provider
)

// Outcome is what RefundMoney reports to its caller. It must agree with the
// stored status: done with done, failed with failed, unknown with
// needs_check, in_progress when another worker holds the claim.
type Outcome string

// Outcomes a submission returns.
const (
	OutcomeDone       Outcome = "done"
	OutcomeFailed     Outcome = "failed"
	OutcomeUnknown    Outcome = "unknown"
	OutcomeInProgress Outcome = "in_progress"
)

// Record is a refund request as stored in the database. GetRecord returns a
// copy: changing it changes nothing.
type Record struct {
	RequestID  string
	ChargeID   string
	Amount     int64 // in the smallest currency unit (cents)
	Currency   string
	Status     Status
	Owner      string    // the worker holding the processing claim
	LeaseUntil time.Time // zero: the claim never expires
	Reason     string    // why it is failed or needs_check
	UpdatedAt  time.Time
}

// RefundParams is one refund request to the provider.
type RefundParams struct {
	Charge string
	Amount int64
	// IdempotencyKey, up to 255 characters. Empty means the client library
	// makes a fresh key for this call, as Stripe's clients do, so a retry
	// from the caller's own loop is a brand-new request.
	IdempotencyKey string
	// Reference is free text stored with the refund (Stripe's metadata),
	// which ListRefunds returns: the way to find a refund again.
	Reference string
}

// ProviderRefund is a refund as the provider holds it.
type ProviderRefund struct {
	ID        string
	Charge    string
	Amount    int64
	Reference string
	Status    string // "succeeded"
	Created   time.Time
	// Replayed: this success was saved under the request's idempotency key
	// and returned for a repeat, not made by it (Idempotent-Replayed).
	Replayed bool
}

// ErrNotFound is returned by GetRecord when there is no record for the id.
var ErrNotFound = errors.New("refundkit: no refund record with that id")

// Sentinels matched by *APIError's Is method: errors.Is(err, ErrAlreadyRefunded).
var (
	ErrAlreadyRefunded      = errors.New("refundkit: charge already refunded") // 400 charge_already_refunded
	ErrIdempotencyKeyReused = errors.New("refundkit: idempotency key reused")  // 400 idempotency_error: same key, other parameters
	ErrIdempotencyKeyInUse  = errors.New("refundkit: idempotency key in use")  // 409: a request with this key is still running
	ErrRateLimited          = errors.New("refundkit: rate limited")            // 429
	ErrInvalidRequest       = errors.New("refundkit: invalid request")         // any other 400
	ErrResourceMissing      = errors.New("refundkit: no such charge")          // 404 resource_missing
	ErrServer               = errors.New("refundkit: provider server error")   // 5xx
)

// ConnectionError means the request never left: nothing happened at the
// provider, and resending is safe.
type ConnectionError struct {
	Cause string
}

func (e *ConnectionError) Error() string {
	return "refundkit: connection failed before the request was sent: " + e.Cause
}

// TimeoutError means the request was sent and no reply came back (a read
// timeout, a reset, a deadline). The refund may or may not have happened.
type TimeoutError struct {
	After time.Duration
	Cause string
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("refundkit: no reply after %s (%s): the refund may or may not have happened", e.After, e.Cause)
}

// APIError is an HTTP error answer from the provider.
type APIError struct {
	Status     int    // HTTP status
	Type       string // "invalid_request_error", "idempotency_error", "api_error", "rate_limit_error"
	Code       string // "charge_already_refunded", "idempotency_key_in_use", "resource_missing", ...
	Param      string
	Message    string
	RetryAfter time.Duration // from a Retry-After header; zero when none was sent
	Replayed   bool          // a saved answer replayed for a repeated idempotency key
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("refundkit: provider answered %d %s", e.Status, e.Type)
	if e.Code != "" {
		s += " (" + e.Code + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Replayed {
		s += " [replayed]"
	}
	return s
}

// Is lets errors.Is match an APIError against the sentinels above.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrAlreadyRefunded:
		return e.Code == "charge_already_refunded"
	case ErrIdempotencyKeyReused:
		// A 409 for a key in flight is also an idempotency_error: only the
		// 400 means "same key, other parameters".
		return e.Status == 400 && e.Type == "idempotency_error"
	case ErrIdempotencyKeyInUse:
		return e.Status == 409
	case ErrRateLimited:
		return e.Status == 429
	case ErrResourceMissing:
		return e.Status == 404
	case ErrServer:
		return e.Status >= 500
	case ErrInvalidRequest:
		return e.Status == 400 && e.Type == "invalid_request_error" && e.Code != "charge_already_refunded"
	}
	return false
}

// The functions below are what a submission calls. Each one reaches the
// fakes of the run it belongs to. In the grader each worker's interpreter
// gets these bound to that worker (see the grader's packagesFor); in a
// native build they find the worker through the context RefundMoney was
// given, so pass that context (or one derived from it) on.

// GetRecord loads the refund record. A missing record is ErrNotFound.
func GetRecord(ctx context.Context, requestID string) (*Record, error) {
	return workerFrom(ctx).GetRecord(ctx, requestID)
}

// Claim atomically moves the record to processing, owned by the calling
// worker, if it is pending, failed or needs_check, or if it is processing
// with a lease that has expired. It reports whether the claim was taken.
// The claim expires after lease; a lease <= 0 never expires.
func Claim(ctx context.Context, requestID string, lease time.Duration) (bool, error) {
	return workerFrom(ctx).Claim(ctx, requestID, lease)
}

// MarkProcessing sets the status to processing unconditionally, with no
// check and no lease: it is not a claim.
func MarkProcessing(ctx context.Context, requestID string) error {
	return workerFrom(ctx).MarkProcessing(ctx, requestID)
}

// MarkDone sets the status to done.
func MarkDone(ctx context.Context, requestID string) error {
	return workerFrom(ctx).MarkDone(ctx, requestID)
}

// MarkFailed sets the status to failed: the refund definitely did not happen.
func MarkFailed(ctx context.Context, requestID, reason string) error {
	return workerFrom(ctx).MarkFailed(ctx, requestID, reason)
}

// MarkNeedsCheck sets the status to needs_check: the outcome is unknown and
// a reconciler must look at the provider before anyone retries or fails it.
func MarkNeedsCheck(ctx context.Context, requestID, reason string) error {
	return workerFrom(ctx).MarkNeedsCheck(ctx, requestID, reason)
}

// CreateRefund asks the provider to refund. See RefundParams.
func CreateRefund(ctx context.Context, p RefundParams) (*ProviderRefund, error) {
	return workerFrom(ctx).CreateRefund(ctx, p)
}

// ListRefunds returns the refunds the provider holds for a charge, oldest
// first, with their references: the reconciliation look-up.
func ListRefunds(ctx context.Context, charge string) ([]ProviderRefund, error) {
	return workerFrom(ctx).ListRefunds(ctx, charge)
}

// Logf writes a line to the run's log; it appears in the grader's event
// trace at the virtual time it was written.
func Logf(ctx context.Context, format string, args ...any) {
	workerFrom(ctx).Logf(ctx, format, args...)
}

// worker is the fakes' side of the functions above (world.Worker).
type worker interface {
	GetRecord(ctx context.Context, requestID string) (*Record, error)
	Claim(ctx context.Context, requestID string, lease time.Duration) (bool, error)
	MarkProcessing(ctx context.Context, requestID string) error
	MarkDone(ctx context.Context, requestID string) error
	MarkFailed(ctx context.Context, requestID, reason string) error
	MarkNeedsCheck(ctx context.Context, requestID, reason string) error
	CreateRefund(ctx context.Context, p RefundParams) (*ProviderRefund, error)
	ListRefunds(ctx context.Context, charge string) ([]ProviderRefund, error)
	Logf(ctx context.Context, format string, args ...any)
}

func workerFrom(ctx context.Context) worker {
	w, _ := workerctx.From(ctx).(worker)
	if w == nil {
		panic("refundkit: this context does not come from the grader; pass on the ctx RefundMoney was given")
	}
	return w
}
