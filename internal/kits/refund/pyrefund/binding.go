// Package pyrefund is the refund kit's Python API: the refundkit module a
// Python answer imports (refundkit.py) and the Go side of its calls,
// answered by the same fakes as the Go harness's. It is apart from the kit
// so that the kit, which the native referee builds, links no Python
// runtime.
package pyrefund

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim/pyrun"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/kits/refund/workerctx"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// PythonModule is the refundkit module a Python answer imports: the same
// operations as the Go package, as coroutines.
//
//go:embed refundkit.py
var PythonModule string

// PythonEntryWant is the Python entry's signature as the user reads it.
const PythonEntryWant = "async def refund_money(request_id: str) -> Outcome"

// pythonEpoch is what a Python answer's time.time() reads when a run
// starts: the runtime's (see internal/faultsim/pyrun's runtime.py).
const pythonEpoch = 1_700_000_000

// Binding is the kit's Python API: refundkit's calls answered by the same
// fakes the Go harness reaches, through the worker the call's context
// carries.
func Binding() pyrun.Binding {
	return pyrun.Binding{Module: "refundkit", Source: PythonModule, Entry: "refund_money", Params: 1, Want: PythonEntryWant,
		Call: pythonCall, Adapt: pythonEntry}
}

func pythonEntry(run pyrun.Runner) any {
	return refund.Entry(func(ctx context.Context, requestID string) (refundkit.Outcome, error) {
		r := run(ctx, requestID)
		if r.Raised != nil {
			if r.Raised.Bug {
				panic(r.Raised.Text())
			}
			return "", errors.New(r.Raised.Text())
		}
		var out *string
		if json.Unmarshal(r.Value, &out) != nil || out == nil {
			return "", nil
		}
		return refundkit.Outcome(*out), nil
	})
}

// pyArgs are the arguments of every refundkit call, by their Python names.
type pyArgs struct {
	RequestID      string  `json:"request_id"`
	Lease          float64 `json:"lease"`
	Reason         string  `json:"reason"`
	Charge         string  `json:"charge"`
	Amount         int64   `json:"amount"`
	IdempotencyKey string  `json:"idempotency_key"`
	Reference      string  `json:"reference"`
	Seconds        float64 `json:"seconds"`
	Line           string  `json:"line"`
}

type pyRecord struct {
	RequestID  string   `json:"request_id"`
	ChargeID   string   `json:"charge_id"`
	Amount     int64    `json:"amount"`
	Currency   string   `json:"currency"`
	Status     string   `json:"status"`
	Owner      string   `json:"owner"`
	LeaseUntil *float64 `json:"lease_until"`
	Reason     string   `json:"reason"`
	UpdatedAt  float64  `json:"updated_at"`
}

type pyRefund struct {
	ID        string  `json:"id"`
	Charge    string  `json:"charge"`
	Amount    int64   `json:"amount"`
	Reference string  `json:"reference"`
	Status    string  `json:"status"`
	Created   float64 `json:"created"`
	Replayed  bool    `json:"replayed"`
}

func pythonCall(ctx context.Context, fn string, raw json.RawMessage) (any, *pyrun.Raised) {
	var a pyArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &pyrun.Raised{Type: "TypeError", Message: "refundkit." + fn + ": " + err.Error()}
	}
	ww, _ := workerctx.From(ctx).(*world.Worker)
	if ww == nil {
		panic("pyrefund: a Python call outside a run's worker")
	}
	// Seconds on the answer's clock: its time.time() at the run's start
	// is pythonEpoch.
	start := time.Now().Add(-ww.Trace().Since())
	secs := func(t time.Time) float64 { return pythonEpoch + t.Sub(start).Seconds() }
	refund := func(p refundkit.ProviderRefund) pyRefund {
		return pyRefund{ID: p.ID, Charge: p.Charge, Amount: p.Amount, Reference: p.Reference, Status: p.Status, Created: secs(p.Created), Replayed: p.Replayed}
	}
	var err error
	switch fn {
	case "get_record":
		var rec *refundkit.Record
		rec, err = refundkit.GetRecord(ctx, a.RequestID)
		if errors.Is(err, refundkit.ErrNotFound) {
			return nil, nil
		}
		if err == nil {
			r := pyRecord{RequestID: rec.RequestID, ChargeID: rec.ChargeID, Amount: rec.Amount, Currency: rec.Currency,
				Status: string(rec.Status), Owner: rec.Owner, Reason: rec.Reason, UpdatedAt: secs(rec.UpdatedAt)}
			if !rec.LeaseUntil.IsZero() {
				lease := secs(rec.LeaseUntil)
				r.LeaseUntil = &lease
			}
			return r, nil
		}
	case "claim":
		var ok bool
		ok, err = refundkit.Claim(ctx, a.RequestID, time.Duration(a.Lease*float64(time.Second)))
		if err == nil {
			return ok, nil
		}
	case "mark_processing":
		err = refundkit.MarkProcessing(ctx, a.RequestID)
	case "mark_done":
		err = refundkit.MarkDone(ctx, a.RequestID)
	case "mark_failed":
		err = refundkit.MarkFailed(ctx, a.RequestID, a.Reason)
	case "mark_needs_check":
		err = refundkit.MarkNeedsCheck(ctx, a.RequestID, a.Reason)
	case "create_refund":
		var p *refundkit.ProviderRefund
		p, err = refundkit.CreateRefund(ctx, refundkit.RefundParams{Charge: a.Charge, Amount: a.Amount, IdempotencyKey: a.IdempotencyKey, Reference: a.Reference})
		if err == nil {
			return refund(*p), nil
		}
	case "list_refunds":
		var list []refundkit.ProviderRefund
		list, err = refundkit.ListRefunds(ctx, a.Charge)
		if err == nil {
			out := make([]pyRefund, len(list))
			for i, p := range list {
				out[i] = refund(p)
			}
			return out, nil
		}
	case "sleep":
		ww.Sleep(time.Duration(a.Seconds * float64(time.Second)))
	case "log":
		refundkit.Logf(ctx, "%s", a.Line)
	default:
		return nil, &pyrun.Raised{Type: "AttributeError", Message: "refundkit has no function " + fn, Bug: true}
	}
	if err != nil {
		return nil, pythonError(err)
	}
	return nil, nil
}

// pythonError is a refundkit error as the Python module's exception.
func pythonError(err error) *pyrun.Raised {
	var conn *refundkit.ConnectionError
	if errors.As(err, &conn) {
		return &pyrun.Raised{Type: "ConnectionFailed", Message: err.Error(), Fields: map[string]any{"cause": conn.Cause}}
	}
	var timeout *refundkit.TimeoutError
	if errors.As(err, &timeout) {
		return &pyrun.Raised{Type: "ProviderTimeout", Message: err.Error(), Fields: map[string]any{"after": timeout.After.Seconds(), "cause": timeout.Cause}}
	}
	var api *refundkit.APIError
	if !errors.As(err, &api) {
		return &pyrun.Raised{Type: "RefundKitError", Message: err.Error()}
	}
	kind := "APIError"
	// In the order the Go reference classifies them: a 409 may also
	// carry the type idempotency_error.
	for _, c := range []struct {
		sentinel error
		kind     string
	}{
		{refundkit.ErrIdempotencyKeyInUse, "IdempotencyKeyInUse"},
		{refundkit.ErrAlreadyRefunded, "AlreadyRefunded"},
		{refundkit.ErrIdempotencyKeyReused, "IdempotencyKeyReused"},
		{refundkit.ErrInvalidRequest, "InvalidRequest"},
		{refundkit.ErrResourceMissing, "ResourceMissing"},
		{refundkit.ErrRateLimited, "RateLimited"},
		{refundkit.ErrServer, "ServerError"},
	} {
		if errors.Is(err, c.sentinel) {
			kind = c.kind
			break
		}
	}
	return &pyrun.Raised{Type: kind, Message: err.Error(), Fields: map[string]any{"status": api.Status, "type": api.Type, "code": api.Code,
		"param": api.Param, "retry_after": api.RetryAfter.Seconds(), "replayed": api.Replayed}}
}
