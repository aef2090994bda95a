package world_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	rk "github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// providerWorld runs steps as one worker against a fresh provider with charge ch_1
// of 10000 and the given faults, in a bubble under the real scheduler, and
// returns the env for inspection.
func providerWorld(t *testing.T, faults []world.Fault, steps func(ctx context.Context, w *world.Worker)) *world.Env {
	t.Helper()
	var env *world.Env
	faultsimtest.Bubble(t)(func() {
		sched := faultsim.NewScheduler(1)
		env = world.NewEnv(sched, world.DefaultNetwork)
		env.Provider().AddCharge("ch_1", 10000)
		for _, f := range faults {
			env.Provider().AddFault(f)
		}
		w := env.NewWorker("worker-1", world.CrashPoint{})
		sched.Go(w.ID, func() { steps(context.Background(), w) })
		if stopped := sched.Run(48 * time.Hour); stopped != "" {
			t.Errorf("the run was stopped: it ran out of %s", stopped)
		}
	})
	return env
}

func params(key string, amount int64) rk.RefundParams {
	return rk.RefundParams{Charge: "ch_1", Amount: amount, IdempotencyKey: key, Reference: "r1"}
}

// answer is what one CreateRefund call returned.
type answer struct {
	refund *rk.ProviderRefund
	err    error
	at     time.Duration
}

func send(ctx context.Context, w *world.Worker, p rk.RefundParams, out *[]answer) {
	start := w.Env().Start()
	r, err := w.CreateRefund(ctx, p)
	*out = append(*out, answer{r, err, time.Since(start)})
}

func apiErr(t *testing.T, err error) *rk.APIError {
	t.Helper()
	var e *rk.APIError
	if !errors.As(err, &e) {
		t.Fatalf("want an *APIError, got %T %v", err, err)
	}
	return e
}

func TestProviderIdempotencyRules(t *testing.T) {
	slow500 := world.Fault{Request: 1, Kind: world.FaultSlow, Processing: 30 * time.Second,
		Then: &world.Fault{Kind: world.FaultHTTPError, Status: 500, Type: "api_error"}}
	tests := []struct {
		name   string
		faults []world.Fault
		steps  func(ctx context.Context, w *world.Worker, got *[]answer)
		check  func(t *testing.T, env *world.Env, got []answer)
	}{
		{
			name: "success applies once and is not replayed",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				if got[0].err != nil || got[0].refund.Amount != 2500 {
					t.Fatalf("got %+v", got[0])
				}
				if n := len(env.Provider().Ledger()); n != 1 {
					t.Fatalf("ledger has %d refunds, want 1", n)
				}
				if q := env.Provider().Requests()[0]; q.Replayed || !q.Applied || !q.Delivered {
					t.Fatalf("request log %+v", q)
				}
			},
		},
		{
			name: "same key and parameters replay the saved refund",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				if got[1].err != nil || got[1].refund.ID != got[0].refund.ID {
					t.Fatalf("second answer %+v, want the same refund %s", got[1], got[0].refund.ID)
				}
				if n := len(env.Provider().Ledger()); n != 1 {
					t.Fatalf("ledger has %d refunds, want 1", n)
				}
				if !env.Provider().Requests()[1].Replayed {
					t.Fatal("the second request is not marked replayed")
				}
			},
		},
		{
			name: "same key with other parameters is an idempotency error",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				send(ctx, w, params("k1", 1000), got)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				e := apiErr(t, got[1].err)
				if e.Status != 400 || e.Type != "idempotency_error" || !errors.Is(e, rk.ErrIdempotencyKeyReused) {
					t.Fatalf("got %v", e)
				}
				if got[2].err != nil || got[2].refund.ID != got[0].refund.ID {
					t.Fatalf("the original parameters no longer replay: %+v", got[2])
				}
			},
		},
		{
			name:   "same key while the first is in flight is a 409, not saved",
			faults: []world.Fault{slow500},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got) // times out at 10s, still processing
				send(ctx, w, params("k1", 2500), got) // 409
				time.Sleep(time.Minute)
				send(ctx, w, params("k1", 2500), got) // the saved 500, replayed
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				var te *rk.TimeoutError
				if !errors.As(got[0].err, &te) || te.After != 10*time.Second {
					t.Fatalf("first: want a 10s TimeoutError, got %v", got[0].err)
				}
				e := apiErr(t, got[1].err)
				if e.Status != 409 || e.Code != "idempotency_key_in_use" || !errors.Is(e, rk.ErrIdempotencyKeyInUse) || errors.Is(e, rk.ErrIdempotencyKeyReused) || e.Replayed {
					t.Fatalf("second: got %v", e)
				}
				e = apiErr(t, got[2].err)
				if e.Status != 500 || !e.Replayed || !errors.Is(e, rk.ErrServer) {
					t.Fatalf("third: want the saved 500 replayed, got %v", e)
				}
				if n := len(env.Provider().Ledger()); n != 0 {
					t.Fatalf("ledger has %d refunds, want 0", n)
				}
			},
		},
		{
			name:   "a 500 is saved and replayed",
			faults: []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 500, Type: "api_error"}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				if e := apiErr(t, got[0].err); e.Status != 500 || e.Replayed {
					t.Fatalf("first: got %v", e)
				}
				if e := apiErr(t, got[1].err); e.Status != 500 || !e.Replayed {
					t.Fatalf("second: want the 500 replayed, got %v", e)
				}
			},
		},
		{
			name: "a validation error is not saved",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 0), got)
				send(ctx, w, params("k1", 20000), got)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				for i := 0; i < 2; i++ {
					e := apiErr(t, got[i].err)
					if e.Status != 400 || e.Param != "amount" || !errors.Is(e, rk.ErrInvalidRequest) {
						t.Fatalf("answer %d: got %v", i, e)
					}
				}
				if got[2].err != nil {
					t.Fatalf("the key was saved after a validation error: %v", got[2].err)
				}
			},
		},
		{
			name:   "a 429 is not saved",
			faults: []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 429, RetryAfter: 5 * time.Second}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				e := apiErr(t, got[0].err)
				if e.Status != 429 || e.RetryAfter != 5*time.Second || !errors.Is(e, rk.ErrRateLimited) {
					t.Fatalf("first: got %v", e)
				}
				if got[1].err != nil {
					t.Fatalf("second: %v", got[1].err)
				}
			},
		},
		{
			name: "a key expires 24 hours after creation",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				time.Sleep(23 * time.Hour)
				send(ctx, w, params("k1", 2500), got)
				time.Sleep(2 * time.Hour)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				if got[1].refund.ID != got[0].refund.ID {
					t.Fatal("the key was forgotten before 24 hours")
				}
				if got[2].refund.ID == got[0].refund.ID {
					t.Fatal("the key was still remembered after 25 hours")
				}
				if n := len(env.Provider().Ledger()); n != 2 {
					t.Fatalf("ledger has %d refunds, want 2", n)
				}
			},
		},
		{
			name: "no key: the client makes a fresh one per call",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("", 2500), got)
				send(ctx, w, params("", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				qs := env.Provider().Requests()
				if !qs[0].KeyGenerated || qs[0].Key == qs[1].Key {
					t.Fatalf("keys %q and %q", qs[0].Key, qs[1].Key)
				}
				if qs[0].Key != "946684800000000000_1" {
					t.Fatalf("generated key %q, want <unixnano>_<n> from the virtual clock", qs[0].Key)
				}
				if n := len(env.Provider().Ledger()); n != 2 {
					t.Fatalf("ledger has %d refunds, want 2", n)
				}
			},
		},
		{
			name: "a fully refunded charge answers charge_already_refunded, saved",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 10000), got)
				send(ctx, w, params("k2", 100), got)
				send(ctx, w, params("k2", 100), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				e := apiErr(t, got[1].err)
				if e.Code != "charge_already_refunded" || !errors.Is(e, rk.ErrAlreadyRefunded) || errors.Is(e, rk.ErrInvalidRequest) {
					t.Fatalf("got %v", e)
				}
				if e := apiErr(t, got[2].err); !e.Replayed {
					t.Fatalf("charge_already_refunded was not saved: %v", e)
				}
			},
		},
		{
			name: "an unknown charge is a 404",
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				p := params("k1", 100)
				p.Charge = "ch_nope"
				send(ctx, w, p, got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				if e := apiErr(t, got[0].err); e.Status != 404 || !errors.Is(e, rk.ErrResourceMissing) {
					t.Fatalf("got %v", e)
				}
			},
		},
		{
			name:   "a connection error never reaches the provider",
			faults: []world.Fault{{Request: 1, Kind: world.FaultConnection}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				var ce *rk.ConnectionError
				if !errors.As(got[0].err, &ce) || env.Provider().Requests()[0].Seen {
					t.Fatalf("got %v, seen %v", got[0].err, env.Provider().Requests()[0].Seen)
				}
			},
		},
		{
			name:   "a request lost on the way times out and applies nothing",
			faults: []world.Fault{{Request: 1, Kind: world.FaultLostRequest}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				var te *rk.TimeoutError
				if !errors.As(got[0].err, &te) || got[0].at != 10*time.Second {
					t.Fatalf("got %v at %s", got[0].err, got[0].at)
				}
				if len(env.Provider().Ledger()) != 0 || env.Provider().Requests()[0].Seen {
					t.Fatal("the provider saw a request that was lost on the way")
				}
			},
		},
		{
			name:   "a lost reply times out but the refund applied",
			faults: []world.Fault{{Request: 1, Kind: world.FaultLostReply}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				var te *rk.TimeoutError
				if !errors.As(got[0].err, &te) {
					t.Fatalf("got %v", got[0].err)
				}
				q := env.Provider().Requests()[0]
				if !q.Applied || q.Delivered || len(env.Provider().Ledger()) != 1 {
					t.Fatalf("request log %+v", q)
				}
			},
		},
		{
			name: "a scripted 400 is not given under a key whose request landed: the saved success replays (P5)",
			faults: []world.Fault{{Request: 1, Kind: world.FaultLostReply},
				{Request: 2, Kind: world.FaultHTTPError, Status: 400, Type: "invalid_request_error", Message: "amount too large"}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				if got[1].err != nil || got[1].refund.ID != "re_1" || !got[1].refund.Replayed {
					t.Fatalf("request 2 got %+v %v, want request 1's refund replayed", got[1].refund, got[1].err)
				}
				if q := env.Provider().Requests()[1]; q.Rule != "P5" {
					t.Fatalf("request 2's answer cites %q, want P5", q.Rule)
				}
				if n := len(env.Provider().Ledger()); n != 1 {
					t.Fatalf("ledger has %d refunds, want 1", n)
				}
			},
		},
		{
			name:   "a scripted 400 under a key nobody used is validation: nothing saved, the retry runs (P3)",
			faults: []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 400, Type: "invalid_request_error", Message: "charge under dispute"}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				send(ctx, w, params("k1", 2500), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				e := apiErr(t, got[0].err)
				if e.Status != 400 || e.Replayed || !errors.Is(e, rk.ErrInvalidRequest) || env.Provider().Requests()[0].Rule != "P3" {
					t.Fatalf("request 1 got %+v (rule %q), want a fresh 400 by P3", e, env.Provider().Requests()[0].Rule)
				}
				if got[1].err != nil || got[1].refund.Replayed {
					t.Fatalf("request 2 got %+v %v, want a fresh refund", got[1].refund, got[1].err)
				}
			},
		},
		{
			name:   "a new fault script counts requests from where it begins",
			faults: []world.Fault{{Kind: world.FaultConnection}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				send(ctx, w, params("k1", 2500), got)
				w.Env().Provider().ScriptFaults(nil)
				send(ctx, w, params("k1", 2500), got)
				w.Env().Provider().ScriptFaults([]world.Fault{{Request: 1, Kind: world.FaultLostReply}})
				send(ctx, w, params("k2", 1000), got)
				send(ctx, w, params("k2", 1000), got)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				var ce *rk.ConnectionError
				var te *rk.TimeoutError
				if !errors.As(got[0].err, &ce) || got[1].err != nil || !errors.As(got[2].err, &te) || got[3].err != nil {
					t.Fatalf("got %v, %v, %v, %v; want a connection error, success, a timeout, success", got[0].err, got[1].err, got[2].err, got[3].err)
				}
			},
		},
		{
			name:   "the caller's context deadline bounds the wait",
			faults: []world.Fault{{Request: 1, Kind: world.FaultSlow, Processing: time.Minute}},
			steps: func(ctx context.Context, w *world.Worker, got *[]answer) {
				ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				defer cancel()
				send(ctx, w, params("k1", 2500), got)
				time.Sleep(2 * time.Minute)
			},
			check: func(t *testing.T, env *world.Env, got []answer) {
				var te *rk.TimeoutError
				if !errors.As(got[0].err, &te) || got[0].at != 3*time.Second {
					t.Fatalf("got %v at %s, want a timeout at 3s", got[0].err, got[0].at)
				}
				if len(env.Provider().Ledger()) != 1 {
					t.Fatal("the slow request did not finish after its caller gave up")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []answer
			env := providerWorld(t, tc.faults, func(ctx context.Context, w *world.Worker) { tc.steps(ctx, w, &got) })
			tc.check(t, env, got)
		})
	}
}

func TestStoreClaim(t *testing.T) {
	tests := []struct {
		name   string
		record rk.Record
		want   bool
	}{
		{"pending", rk.Record{Status: rk.StatusPending}, true},
		{"failed", rk.Record{Status: rk.StatusFailed}, true},
		{"needs_check", rk.Record{Status: rk.StatusNeedsCheck}, true},
		{"done", rk.Record{Status: rk.StatusDone}, false},
		{"processing with a live lease", rk.Record{Status: rk.StatusProcessing, Owner: "w9", LeaseUntil: time.Date(2000, 1, 1, 0, 5, 0, 0, time.UTC)}, false},
		{"processing with an expired lease", rk.Record{Status: rk.StatusProcessing, Owner: "w9", LeaseUntil: time.Date(1999, 12, 31, 23, 59, 0, 0, time.UTC)}, true},
		{"processing with no lease", rk.Record{Status: rk.StatusProcessing, Owner: "w9"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got bool
			var after rk.Record
			faultsimtest.Bubble(t)(func() {
				sched := faultsim.NewScheduler(1)
				env := world.NewEnv(sched, world.DefaultNetwork)
				rec := tc.record
				rec.RequestID = "r1"
				env.Store().Put(rec)
				w := env.NewWorker("worker-1", world.CrashPoint{})
				sched.Go(w.ID, func() {
					var err error
					got, err = w.Claim(context.Background(), "r1", time.Minute)
					if err != nil {
						t.Error(err)
					}
				})
				sched.Run(time.Hour)
				after, _ = env.Store().Lookup("r1")
			})
			if got != tc.want {
				t.Fatalf("Claim = %v, want %v", got, tc.want)
			}
			if got && (after.Owner != "worker-1" || after.Status != rk.StatusProcessing || after.LeaseUntil.IsZero()) {
				t.Fatalf("after a claim: %+v", after)
			}
		})
	}
}

// TestInFlightEndsByTheCompletionTable: a request sent before the run
// ends as any request's execution does. Refused at completion because a
// refund made meanwhile left too little (P11), nothing is saved under its
// key, so a resend under that key runs afresh (P3) rather than replaying
// the refusal; had it fit, its refund would be saved and replayed (P5).
func TestInFlightEndsByTheCompletionTable(t *testing.T) {
	for _, tt := range []struct {
		name       string
		firstNew   int64 // refunded under another key before it lands
		wantReplay bool
	}{
		{"refused at completion", 5000, false},
		{"lands", 1000, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []answer
			faultsimtest.Bubble(t)(func() {
				sched := faultsim.NewScheduler(1)
				env := world.NewEnv(sched, world.DefaultNetwork)
				env.Provider().AddCharge("ch_1", 10000)
				if err := env.Provider().AddInFlight("ch_1", 6000, "r1", "k-old", 20*time.Second, 5*time.Second, "r1"); err != nil {
					t.Fatal(err)
				}
				w := env.NewWorker("worker-1", world.CrashPoint{})
				sched.Go(w.ID, func() {
					ctx := context.Background()
					send(ctx, w, params("k-new", tt.firstNew), &got)
					time.Sleep(10 * time.Second)
					send(ctx, w, params("k-old", 6000), &got)
				})
				if stopped := sched.Run(time.Hour); stopped != "" {
					t.Errorf("the run was stopped: it ran out of %s", stopped)
				}
			})
			if len(got) != 2 || got[0].err != nil {
				t.Fatalf("answers %+v", got)
			}
			if tt.wantReplay {
				if got[1].err != nil || got[1].refund == nil || !got[1].refund.Replayed {
					t.Fatalf("the resend under the landed key: %+v, want its saved refund replayed", got[1])
				}
				return
			}
			e := apiErr(t, got[1].err)
			if e.Status != 400 || e.Replayed {
				t.Fatalf("the resend under the refused key: %+v, want a fresh 400 (nothing was saved)", e)
			}
		})
	}
}
