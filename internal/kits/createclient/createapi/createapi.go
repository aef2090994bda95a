// Package createapi is the whole API a create-client submission sees: the
// operation store, the vendor, their types and their errors. Every export
// here is the candidate's by construction; the fakes behind the two
// interfaces live in package createclient, out of the submission's reach.
package createapi

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Status is where an operation stands.
type Status string

// The statuses of an operation.
const (
	// Pending: not settled. A call returns it when another worker holds
	// the operation's claim.
	Pending Status = "pending"
	// Created: the vendor holds the payment; PaymentID names it.
	Created Status = "created"
	// Failed: the vendor refused the payment and it certainly does not
	// exist.
	Failed Status = "failed"
	// Unknown: the payment may or may not exist; reconciliation decides.
	Unknown Status = "unknown"
)

// Request is the body of a create request, with the two fields a vendor
// may use to recognise a repeat.
type Request struct {
	Amount   int64
	Currency string
	Payee    string
	Memo     string
	// IdempotencyKey is sent to vendors that take keys (Features.IdempotencyKeys).
	IdempotencyKey string
	// Reference is stored on the payment by vendors that keep a client
	// reference (Features.References), and Search finds payments by it.
	Reference string
}

// Plan is an operation's request as saved before its first send.
type Plan struct {
	Request Request
	SavedAt time.Time
}

// Operation is one payment your system has decided to create.
type Operation struct {
	ID       string
	Amount   int64
	Currency string
	Payee    string
	Memo     string
	Status   Status
	// Plan is nil until SavePlan stores one (an earlier process may have).
	Plan      *Plan
	PaymentID string
	Note      string
}

// Store is your service's database of operations. The problem page's
// rules S1 to S5 (and Q1, the queue's) say how it behaves; the grader's
// trace cites them.
type Store interface {
	// Get reads an operation.
	Get(ctx context.Context, id string) (Operation, error)
	// Claim takes the operation for this worker for lease. It reports
	// false when another worker's lease has not expired. A worker
	// restarted under the same name gets its own claim back; once a lease
	// has run out, another worker may take it.
	Claim(ctx context.Context, id string, lease time.Duration) (bool, error)
	// SavePlan stores req as the operation's plan if it has none yet, and
	// returns the plan the operation has now: yours, or the one saved
	// before it.
	SavePlan(ctx context.Context, id string, req Request) (Plan, error)
	// Finish records where the operation stands. paymentID is the
	// vendor's id for Created; note says why, for the people who read it.
	Finish(ctx context.Context, id string, status Status, paymentID, note string) error
}

// Features are what a vendor's API offers.
type Features struct {
	// IdempotencyKeys: the vendor applies repeats of a key once, for
	// KeyLifetime after the key's first use; with ReplaysErrors it also
	// answers repeats of a key whose first request failed with a server
	// error with that same saved error.
	IdempotencyKeys bool
	KeyLifetime     time.Duration
	ReplaysErrors   bool
	// References: the vendor stores Request.Reference, and Search finds a
	// payment by it at most SearchLag after the payment was created.
	References bool
	SearchLag  time.Duration
	// LandsWithin: a request the vendor has not carried out within this
	// long after it was sent is never carried out.
	LandsWithin time.Duration
}

// Payment is a payment the vendor holds.
type Payment struct {
	ID        string
	Amount    int64
	Currency  string
	Payee     string
	Memo      string
	Reference string
	CreatedAt time.Time
}

// Vendor is the vendor's API, whatever kind of vendor it is. The problem
// page's rules V1 to V12 say how it answers; the grader's trace cites them.
type Vendor interface {
	Name() string
	Features() Features
	// Create asks the vendor to create a payment. The error is a
	// *ConnectError, a *TimeoutError or an *HTTPError.
	Create(ctx context.Context, req Request) (Payment, error)
	// Search lists the payments that carry reference; ErrNoSearch for a
	// vendor without references. A search that fails looked nothing up.
	Search(ctx context.Context, reference string) ([]Payment, error)
}

// ErrNoSearch is Search at a vendor that keeps no references.
var ErrNoSearch = errors.New("createapi: this vendor keeps no client reference to search by")

// ErrNoOperation is Get, Claim, SavePlan or Finish for an id the store
// does not have.
var ErrNoOperation = errors.New("createapi: no such operation")

// ConnectError: the connection was never made, so nothing was sent.
type ConnectError struct{ Reason string }

func (e *ConnectError) Error() string { return "connect: " + e.Reason }

// TimeoutError: the request was sent and no answer came back within the
// client's read timeout, After.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return fmt.Sprintf("no answer within %s", e.After) }

// HTTPError is an answer with an error status.
type HTTPError struct {
	Status int
	Code   string
	// RetryAfter is the Retry-After the vendor sent (0 if none).
	RetryAfter time.Duration
	// Replayed: the vendor answered with the response it saved for this
	// idempotency key, without running the request again.
	Replayed bool
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, e.Code)
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (Retry-After %s)", e.RetryAfter)
	}
	if e.Replayed {
		s += " (replayed)"
	}
	return s
}
