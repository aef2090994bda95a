package grader

import (
	"time"

	rk "github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// The async-refund suite. Every scenario starts from a refund request r1 of
// 2500 cents against charge ch_1 of 10000 (a partial refund, so a duplicate
// really applies) unless it says otherwise. History an earlier run of the
// submission made is seeded with BySubmission, so it carries the key and
// reference the submission itself sends; the Key and Reference written
// there are only what the reference solution would send.

const (
	suiteRequest = "r1"
	suiteCharge  = "ch_1"
	suiteAmount  = 2500
	chargeAmount = 10000
)

func pendingRecord() RecordSeed {
	return RecordSeed{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusPending}
}

func plainCharge(refunds ...RefundSeed) []ChargeSeed {
	return []ChargeSeed{{ID: suiteCharge, Amount: chargeAmount, Refunds: refunds}}
}

func oneCall() []Phase {
	return []Phase{{Name: "run", Invocations: []Invocation{{Worker: "worker-1", RequestID: suiteRequest}}}}
}

func conn(n int) world.Fault      { return world.Fault{Request: n, Kind: world.FaultConnection} }
func lostReply(n int) world.Fault { return world.Fault{Request: n, Kind: world.FaultLostReply} }

// concurrencySchedules is how many seeded schedules a concurrency scenario explores.
const concurrencySchedules = 50

// envelopeSchedules is how many seeds all-attempts-fail draws waits with:
// twice what envelopeCheck needs to judge the ceiling's growth.
const envelopeSchedules = 2 * envelopeProcesses

// goAsyncRefundSuite returns the scenarios for the async-refund problem, in
// report order. Each call returns fresh values.
func goAsyncRefundSuite() []Scenario {
	return []Scenario{
		{
			Name:   "all-attempts-fail",
			Expect: expectEnd(0, rk.StatusFailed, rk.StatusNeedsCheck),
			Title:  "Every attempt fails",
			Description: "The provider cannot be reached at all: every request fails with a connection error. " +
				"Nothing was refunded, so the record must not end done. 32 runs with different random seeds compare the waits between attempts: " +
				"they must differ (jitter), and the longest wait after the last retry must be at least 10% longer than the longest after the first (a growing ceiling).",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults:  []world.Fault{conn(0)},
			Phases:  oneCall(),
			Explore: Exploration{Schedules: envelopeSchedules},
			Defects: map[string]string{InvOutcomeMatchesState: DefectDoneAfterFailure, InvExpectedEndState: DefectDoneAfterFailure},
		},
		{
			Name:   "success-on-retry",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "Success on a later retry",
			Description: "The first request fails with a connection error, the second is rate limited (429 with no Retry-After), the third succeeds. " +
				"One refund, recorded done, with a wait before each retry.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{conn(1), {Request: 2, Kind: world.FaultHTTPError, Status: 429, Type: "rate_limit_error"}},
			Phases: oneCall(),
		},
		{
			Name:   "lost-reply",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "A lost reply",
			Description: "The provider applies the first refund, but its reply is lost: the caller sees a timeout. " +
				"A retry under the same key gets the saved answer back; a retry under a new key refunds again.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{lostReply(1)},
			Phases: oneCall(),
		},
		{
			Name:   "every-reply-lost",
			Expect: expectEnd(1, rk.StatusNeedsCheck, rk.StatusDone),
			Title:  "Every reply lost",
			Description: "Every reply from the provider is lost, though the first request applied the refund. " +
				"The caller never hears back: the record must end needs_check (or done, if a look-up finds the refund), with exactly one refund.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{lostReply(0)},
			Phases: oneCall(),
		},
		{
			Name:   "timeout-before-send",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "Timeout before the provider saw the request",
			Description: "The first request is lost on the way: the caller times out, the provider never saw it. " +
				"The retry succeeds: one refund, done.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{{Request: 1, Kind: world.FaultLostRequest}},
			Phases: oneCall(),
		},
		{
			Name:   "saved-5xx-replayed",
			Expect: expectEnd(0, rk.StatusNeedsCheck, rk.StatusFailed),
			Title:  "A 500 saved under the key and replayed",
			Description: "The first request fails inside the provider with a 500. The provider saves that answer under the idempotency key " +
				"and replays it to every retry with the same key for 24 hours. Nothing was refunded, but the caller cannot know: " +
				"not done, and not failed unless a ListRefunds look-up after it showed no refund.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 500, Type: "api_error", Message: "internal error"}},
			Phases: oneCall(),
		},
		{
			Name:   "key-in-flight-409",
			Expect: expectEnd(0, rk.StatusNeedsCheck, rk.StatusFailed),
			Title:  "409: the key is still in flight",
			Description: "The first request is slow: the provider works on it for 30 s, past the client's 10 s timeout. " +
				"A retry with the same key meanwhile gets 409 idempotency_key_in_use, and the slow request finally ends in a 500. " +
				"A 409 is not a success: marking done on it is wrong.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{{Request: 1, Kind: world.FaultSlow, Processing: 30 * time.Second,
				Then: &world.Fault{Kind: world.FaultHTTPError, Status: 500, Type: "api_error", Message: "internal error"}}},
			Phases:  oneCall(),
			Defects: map[string]string{InvDoneMeansRefunded: DefectSwallowedErrors, InvOutcomeMatchesState: DefectSwallowedErrors},
		},
		{
			Name:   "409-then-success",
			Title:  "409, then the slow request succeeds",
			Expect: expectEnd(1, rk.StatusDone, rk.StatusNeedsCheck),
			Description: "The first request is slow: the provider works on it for 12 s, past the client's 10 s timeout, and then refunds. " +
				"A retry with the same key meanwhile gets 409 idempotency_key_in_use: the first request is still running and may yet land. " +
				"A run that waits and resends under the same key gets the saved success replayed: one refund, done. " +
				"A run that gives up while the answer is still unknown may leave needs_check for a reconciler. " +
				"Taking the 409 as a refusal (failed) loses a refund that happened.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{{Request: 1, Kind: world.FaultSlow, Processing: 12 * time.Second}},
			Phases: oneCall(),
			Defects: map[string]string{InvRefundRecorded: DefectUnknownAsFailed, InvExpectedEndState: DefectUnknownAsFailed,
				InvDoneMeansRefunded: DefectSwallowedErrors, InvOutcomeMatchesState: DefectSwallowedErrors},
		},
		{
			Name:   "refusal-after-timeout",
			Title:  "A refusal after a timeout",
			Expect: expectEnd(1, rk.StatusNeedsCheck, rk.StatusDone),
			Description: "The charge of 10000 already has 6000 refunded for other orders. The first request applies r1's 2500, but its reply is lost: the caller sees a timeout. " +
				"The retry is refused 400 invalid_request_error, \"amount greater than what is left to refund (1500)\", by a front end that checks the amount " +
				"before the idempotency layer looks the key up, so no saved answer is replayed. The refusal answers the retry only: " +
				"the timed-out attempt may have landed (here it is the very reason for the refusal). Recording failed loses the refund; " +
				"needs_check is right, or done if a ListRefunds look-up finds it.",
			Records: []RecordSeed{pendingRecord()},
			Charges: plainCharge(RefundSeed{Amount: 6000, Reference: "r0", Key: "refund-r0", Age: 72 * time.Hour}),
			Faults: []world.Fault{lostReply(1), {Request: 2, Kind: world.FaultHTTPError, Status: 400, Type: "invalid_request_error", BeforeKeys: true,
				Message: "refund amount 2500 is greater than what is left to refund (1500)"}},
			Phases:  oneCall(),
			Defects: map[string]string{InvRefundRecorded: DefectUnknownAsFailed, InvExpectedEndState: DefectUnknownAsFailed},
		},
		{
			Name:   "rate-limited-429",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "429 with Retry-After",
			Description: "The first request is rate limited with Retry-After: 5s (a header this fake sends; Stripe does not promise one). " +
				"The next attempt must wait at least 5 s, then it succeeds.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 429, Type: "rate_limit_error", RetryAfter: 5 * time.Second}},
			Phases: oneCall(),
		},
		{
			Name:   "invalid-request",
			Expect: expectEnd(0, rk.StatusFailed),
			Title:  "An invalid request",
			Description: "The record asks to refund 20000 on a charge of 10000: the provider answers 400 invalid_request_error on the amount. " +
				"That answer is definitive: no retry, and the record ends failed.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: 2 * chargeAmount, Currency: "usd", Status: rk.StatusPending}},
			Charges: plainCharge(),
			Phases:  oneCall(),
			Defects: map[string]string{InvDoneMeansRefunded: DefectDoneAfterFailure, InvExpectedEndState: DefectDoneAfterFailure},
		},
		{
			Name:   "already-refunded",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "The charge is already refunded",
			Description: "Two days ago an earlier run of this code refunded the full 10000 for this request, under the key it sends (which has since expired), and the record still says pending. " +
				"The provider answers 400 charge_already_refunded: the money is back with the customer, so the record ends done.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: chargeAmount, Currency: "usd", Status: rk.StatusPending}},
			Charges: plainCharge(RefundSeed{Amount: chargeAmount, Reference: suiteRequest, Key: "refund-r1", Age: 48 * time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Phases:  oneCall(),
		},
		{
			Name:   "helper-panics",
			Expect: expectEnd(1, rk.StatusNeedsCheck, rk.StatusDone),
			Title:  "A helper panics",
			Description: "The refund goes through, then MarkDone panics with \"database connection reset\". " +
				"The panic may reach the caller, but the record must not be left pending or processing: the refund happened.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Panics:  []world.PanicRule{{Call: "MarkDone", Nth: 1, Message: "database connection reset"}},
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectCrashWindow, InvExpectedEndState: DefectCrashWindow},
		},
		{
			Name:   "mark-done-fails",
			Expect: expectEnd(1, rk.StatusNeedsCheck, rk.StatusDone),
			Title:  "The database write fails after the refund",
			Description: "The refund goes through, then MarkDone fails with \"database write timed out\" and changes nothing. " +
				"The record must not be left in processing: the refund happened, so it ends done (a retried write) or needs_check.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Panics:  []world.PanicRule{{Call: "MarkDone", Nth: 1, Message: "database write timed out", Error: true}},
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectCrashWindow, InvExpectedEndState: DefectCrashWindow},
		},
		{
			Name:   "write-after-lookup-fails",
			Expect: expectEnd(1, rk.StatusNeedsCheck, rk.StatusDone),
			Title:  "The write after the look-up fails",
			Description: "Every reply from the provider is lost, though the first request applied the refund, so only a ListRefunds look-up can settle the run. " +
				"The first MarkDone then fails with \"database write timed out\" and changes nothing. The refund happened: the record must not be left in processing, " +
				"and what the call returns must match what the record says (an error is fine; an empty outcome with no error is not).",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults:  []world.Fault{lostReply(0)},
			Panics:  []world.PanicRule{{Call: "MarkDone", Nth: 1, Message: "database write timed out", Error: true}},
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectSwallowedErrors, InvExpectedEndState: DefectCrashWindow},
		},
		{
			Name:  "needs-check-write-fails",
			Title: "The needs_check write fails",
			Description: "An hour ago an earlier run of this code refunded 1000 for r1 under the key it sends; the record now asks for 2500, so the provider refuses the request " +
				"with 400 idempotency_error and nothing but needs_check is right. The first MarkNeedsCheck fails with \"database write timed out\" and changes nothing. " +
				"The call may write again or return an error (the lease then runs out and a later run looks first), but it must not report unknown while the record still says processing.",
			Records: []RecordSeed{pendingRecord()},
			Charges: plainCharge(RefundSeed{Amount: 1000, Reference: suiteRequest, Key: "refund-r1", Age: time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Panics:  []world.PanicRule{{Call: "MarkNeedsCheck", Nth: 1, Message: "database write timed out", Error: true}},
			Phases:  oneCall(),
			// The record may stay processing (the write failed; the lease
			// frees it), so the checks of where it ends are not made.
			Invariants: []string{InvNoDoubleRefund, InvDoneMeansRefunded, InvUnknownNotFailed, InvSameKey, InvPermanentNotRetried,
				InvBoundedAttempts, InvOutcomeMatchesState, InvExclusiveClaim, InvStopsWhenCancelled},
			Defects: map[string]string{InvOutcomeMatchesState: DefectSwallowedErrors, InvDoneMeansRefunded: DefectSwallowedErrors},
		},
		{
			Name:   "load-fails",
			Expect: expectEnd(0, rk.StatusPending),
			Title:  "The database fails on the first read",
			Description: "GetRecord fails with \"connection to the database lost\" (not ErrNotFound). The function must return an error: " +
				"no panic, no outcome, no call to the provider, the record untouched.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Panics:  []world.PanicRule{{Call: "GetRecord", Nth: 1, Message: "connection to the database lost", Error: true}},
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectMissingRecord, InvExpectedEndState: DefectMissingRecord},
		},
		{
			Name:   "claim-fails",
			Expect: expectEnd(0, rk.StatusPending),
			Title:  "The database fails on the claim",
			Description: "Claim fails with \"deadlock detected, transaction rolled back\" and changes nothing. Nobody holds r1: " +
				"the function must return an error, with no call to the provider and no outcome that claims another worker has it.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Panics:  []world.PanicRule{{Call: "Claim", Nth: 1, Message: "deadlock detected, transaction rolled back", Error: true}},
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectSwallowedErrors, InvExpectedEndState: DefectSwallowedErrors},
		},
		{
			Name:        "retry-failed",
			Expect:      expectEnd(1, rk.StatusDone),
			Title:       "Retrying a failed refund",
			Description: "The record was marked failed by an earlier run that never reached the provider. This run claims it again and refunds: one refund, done.",
			Records:     []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusFailed, Reason: "connection refused"}},
			Charges:     plainCharge(),
			Phases:      oneCall(),
		},
		{
			Name:        "repeat-after-done",
			Expect:      &Expectation{Status: []rk.Status{rk.StatusDone}, Refunds: intp(1), Outcome: rk.OutcomeDone},
			Title:       "A repeat call after done",
			Description: "An earlier run of this code made the refund an hour ago and the record says done. Calling again must not touch the provider, and returns done with no error.",
			Records:     []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusDone}},
			Charges:     plainCharge(RefundSeed{Amount: suiteAmount, Reference: suiteRequest, Key: "refund-r1", Age: time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Phases:      oneCall(),
		},
		{
			Name:        "missing-record",
			Expect:      expectEnd(0),
			Title:       "A missing record",
			Description: "There is no record for r1. The function must return a clear error: no panic, no outcome done, no provider call.",
			Charges:     plainCharge(),
			Phases:      oneCall(),
		},
		{
			Name:   "two-concurrent",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "Two concurrent calls",
			Description: "Two workers call RefundMoney for r1 at the same moment, as a queue that delivers twice would. " +
				"50 seeded schedules interleave their store and provider calls: one refund, and never both working on it at once.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Phases: []Phase{{Name: "run", Invocations: []Invocation{
				{Worker: "worker-1", RequestID: suiteRequest}, {Worker: "worker-2", RequestID: suiteRequest}}}},
			Explore: Exploration{Schedules: concurrencySchedules},
			Defects: map[string]string{InvNoDoubleRefund: DefectCheckThenAct, InvExpectedEndState: DefectCheckThenAct},
		},
		{
			Name:   "redelivery",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "At-least-once redelivery",
			Description: "The queue delivers r1 four times: two at once, one 2 s later, one 15 s later. The first reply from the provider is lost, " +
				"so the first owner is still retrying when the others arrive. 50 seeded schedules: one refund, one owner at a time.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{lostReply(1)},
			Phases: []Phase{{Name: "run", Invocations: []Invocation{
				{Worker: "worker-1", RequestID: suiteRequest}, {Worker: "worker-2", RequestID: suiteRequest},
				{Worker: "worker-3", At: 2 * time.Second, RequestID: suiteRequest}, {Worker: "worker-4", At: 15 * time.Second, RequestID: suiteRequest}}}},
			Explore: Exploration{Schedules: concurrencySchedules},
			Defects: map[string]string{InvNoDoubleRefund: DefectCheckThenAct, InvExpectedEndState: DefectCheckThenAct},
		},
		{
			Name:   "finished-while-claiming",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "Another run finishes between the read and the claim",
			Description: "worker-1 refunds r1; the queue redelivers r1 to worker-2 the instant worker-1's reply comes back. " +
				"In some of the 50 schedules worker-2 reads processing, worker-1 records done, and worker-2's claim is refused: " +
				"worker-2 must report what the record says now (done), not in_progress.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Phases: []Phase{{Name: "run", Invocations: []Invocation{
				{Worker: "worker-1", RequestID: suiteRequest}, {Worker: "worker-2", RequestID: suiteRequest, When: &Trigger{Answered: "worker-1"}}}}},
			Explore: Exploration{Schedules: concurrencySchedules},
			Defects: map[string]string{InvOutcomeMatchesState: DefectCheckThenAct},
		},
		{
			Name:   "failed-while-claiming",
			Expect: expectEnd(0, rk.StatusFailed, rk.StatusNeedsCheck),
			Title:  "Another run records failed between the read and the claim",
			Description: "r1 asks for 20000 on a charge of 10000. worker-1 sends it and the provider refuses it (400 on the amount); " +
				"the queue redelivers r1 to worker-2 the instant that answer comes back. In some of the 50 schedules worker-2 reads processing, worker-1 records failed, and worker-2's claim is refused: " +
				"worker-2 must report what the record says now (failed).",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: 2 * chargeAmount, Currency: "usd", Status: rk.StatusPending}},
			Charges: plainCharge(),
			Phases: []Phase{{Name: "run", Invocations: []Invocation{
				{Worker: "worker-1", RequestID: suiteRequest}, {Worker: "worker-2", RequestID: suiteRequest, When: &Trigger{Answered: "worker-1"}}}}},
			Explore: Exploration{Schedules: concurrencySchedules},
			Defects: map[string]string{InvOutcomeMatchesState: DefectCheckThenAct},
		},
		{
			Name:   "needs-check-while-claiming",
			Expect: expectEnd(1, rk.StatusNeedsCheck),
			Title:  "Another run records needs_check between the read and the claim",
			Description: "An hour ago an earlier run of this code refunded 1000 for r1 under its key; the record now asks for 2500, so the provider refuses worker-1's request " +
				"with 400 idempotency_error at 200 ms and worker-1 records needs_check. The queue redelivers r1 to worker-2 at 200 ms and to worker-3 at 300 ms. " +
				"In some of the 30 schedules a redelivery reads processing, worker-1 records needs_check, and the redelivery's claim is refused: it must report unknown, as the record says.",
			Records: []RecordSeed{pendingRecord()},
			Charges: plainCharge(RefundSeed{Amount: 1000, Reference: suiteRequest, Key: "refund-r1", Age: time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Phases: []Phase{{Name: "run", Invocations: []Invocation{
				{Worker: "worker-1", RequestID: suiteRequest}, {Worker: "worker-2", At: 200 * time.Millisecond, RequestID: suiteRequest},
				{Worker: "worker-3", At: 300 * time.Millisecond, RequestID: suiteRequest}}}},
			Explore: Exploration{Schedules: 30},
			Defects: map[string]string{InvOutcomeMatchesState: DefectCheckThenAct, InvUnknownNotFailed: DefectUnknownAsFailed},
		},
		{
			Name:   "redelivered-at-needs-check",
			Expect: expectEnd(1, rk.StatusNeedsCheck),
			Title:  "Redelivered the moment the first run records needs_check",
			Description: "An hour ago an earlier run of this code refunded 1000 for r1 under its key; the record now asks for 2500, so the provider refuses worker-1's request " +
				"with 400 idempotency_error and worker-1 records needs_check. The queue redelivers r1 to worker-2 the moment that write lands, and worker-2 may claim r1 at once. " +
				"In some of the 50 schedules worker-2 claims it before worker-1 has returned: from its needs_check write on, worker-1 must not write r1 again, " +
				"or it overwrites worker-2's claim while worker-2 is still at work.",
			Records: []RecordSeed{pendingRecord()},
			Charges: plainCharge(RefundSeed{Amount: 1000, Reference: suiteRequest, Key: "refund-r1", Age: time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Phases: []Phase{{Name: "run", Invocations: []Invocation{
				{Worker: "worker-1", RequestID: suiteRequest},
				{Worker: "worker-2", RequestID: suiteRequest, When: &Trigger{Status: rk.StatusNeedsCheck}}}}},
			Explore: Exploration{Schedules: concurrencySchedules},
			Defects: map[string]string{InvUnknownNotFailed: DefectUnknownAsFailed},
		},
		{
			Name:   "reread-fails",
			Expect: expectEnd(0, rk.StatusProcessing),
			Title:  "The re-read after a refused claim fails",
			Description: "worker-9 holds a live claim on r1. This run's claim is refused, and the second GetRecord of the run (the one that asks what the record says now) " +
				"fails with \"connection reset by peer\". Without a record there is nothing to report: return an error, do not panic, and do not call the provider.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusProcessing,
				Owner: "worker-9", OwnerAlive: true, LeaseLeft: 5 * time.Minute}},
			Charges: plainCharge(),
			Panics:  []world.PanicRule{{Call: "GetRecord", Nth: 2, Message: "connection reset by peer", Error: true}},
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectSwallowedErrors, InvExpectedEndState: DefectCheckThenAct},
		},
		{
			Name:   "slow-run-redelivered",
			Expect: expectEnd(1, rk.StatusDone, rk.StatusNeedsCheck),
			Title:  "Redelivered while a slow run is still sending",
			Description: "Every reply from the provider is lost, though the first request applied the refund, so worker-1's run lasts as long as its attempts " +
				"(10 s of client timeout each). The queue redelivers r1 at 12 s, 25 s and 40 s. A lease shorter than the run lets a redelivery " +
				"claim r1 while worker-1 is still sending: the claim's lease must outlast the longest run the code can make.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{lostReply(0)},
			Phases: []Phase{{Name: "run", Invocations: []Invocation{
				{Worker: "worker-1", RequestID: suiteRequest}, {Worker: "worker-2", At: 12 * time.Second, RequestID: suiteRequest},
				{Worker: "worker-3", At: 25 * time.Second, RequestID: suiteRequest}, {Worker: "worker-4", At: 40 * time.Second, RequestID: suiteRequest}}}},
			Explore: Exploration{Schedules: 10},
			Defects: map[string]string{InvNoDoubleRefund: DefectCheckThenAct},
		},
		{
			Name:   "other-refunds-on-charge",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "Other refunds on the same charge",
			Description: "An earlier run left r1 needs_check without sending anything. The charge already has two refunds for other requests: " +
				"2500 under reference r7 (the same amount as r1) and 1000 under r8. Only a refund under r1's own reference is r1's: " +
				"taking r7's refund for r1's marks r1 done with no refund made for it.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusNeedsCheck, Reason: "the worker stopped before sending"}},
			Charges: plainCharge(RefundSeed{Amount: suiteAmount, Reference: "r7", Key: "refund-r7", Age: 3 * time.Hour},
				RefundSeed{Amount: 1000, Reference: "r8", Key: "refund-r8", Age: 2 * time.Hour}),
			Phases:  oneCall(),
			Defects: map[string]string{InvDoneMeansRefunded: DefectSwallowedErrors},
		},
		{
			Name:   "key-used-for-another-amount",
			Expect: expectEnd(1, rk.StatusNeedsCheck),
			Title:  "Our key was first used for another amount",
			Description: "An hour ago an earlier run of this code refunded 1000 for r1 under the key and reference it sends; then the record was corrected to 2500 " +
				"and set back to pending. The key is still alive, so a request under it for 2500 is refused with 400 idempotency_error (other parameters). " +
				"The refused request changed nothing, but the earlier one moved money: neither done (the customer got 1000, not 2500) nor failed (a rerun " +
				"after the key expires would send 2500 more). needs_check, for a person.",
			Records: []RecordSeed{pendingRecord()},
			Charges: plainCharge(RefundSeed{Amount: 1000, Reference: suiteRequest, Key: "refund-r1", Age: time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Phases:  oneCall(),
			Defects: map[string]string{InvDoneMeansRefunded: DefectSwallowedErrors, InvUnknownNotFailed: DefectUnknownAsFailed, InvExpectedEndState: DefectSwallowedErrors},
		},
		{
			Name:   "key-used-with-another-reference",
			Expect: expectEnd(1, rk.StatusNeedsCheck),
			Title:  "Our key was first used with another reference",
			Description: "An hour ago an older version of this code sent r1's refund of 2500 under the key this code sends, but with the reference spelled the old way (\"order-4471\"); " +
				"the provider applied it and the record was set back to pending. A look-up by this code's reference finds nothing, and a request under the key " +
				"is refused with 400 idempotency_error (other parameters). The refused request changed nothing, but an earlier one under the same key may have moved money: " +
				"not failed (a rerun after the key expires would refund again), needs_check, for a person.",
			Records: []RecordSeed{pendingRecord()},
			Charges: plainCharge(RefundSeed{Amount: suiteAmount, Reference: "order-4471", Key: "refund-r1", Age: time.Hour, ForRequest: suiteRequest, BySubmission: true, KeyOnly: true}),
			Phases:  oneCall(),
			Defects: map[string]string{InvUnknownNotFailed: DefectUnknownAsFailed, InvExpectedEndState: DefectUnknownAsFailed},
		},
		{
			Name:   "own-reference-other-amount",
			Expect: expectEnd(1, rk.StatusNeedsCheck),
			Title:  "A refund of another amount under our reference",
			Description: "r1 (2500) was left needs_check a week ago. The provider holds a refund of 1000 under r1's reference, made by an earlier run of this code " +
				"before the record's amount was corrected; its key has expired. The look-up finds it, but it is not the refund the record asks for: " +
				"done would be a lie, and sending 2500 more may be too much. needs_check, for a person.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusNeedsCheck, Reason: "no reply after 10s"}},
			Charges: plainCharge(RefundSeed{Amount: 1000, Reference: suiteRequest, Key: "refund-r1", Age: 7 * 24 * time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Phases:  oneCall(),
			Defects: map[string]string{InvDoneMeansRefunded: DefectSwallowedErrors, InvExpectedEndState: DefectBlindResend, InvNoDoubleRefund: DefectBlindResend},
		},
		{
			Name:   "lookup-fails",
			Expect: expectEnd(1, rk.StatusNeedsCheck),
			Title:  "The look-up fails",
			Description: "A week ago an earlier run of this code sent r1's refund; the provider applied it, the reply was lost, and r1 was left needs_check. " +
				"The key has expired since. Now the first ListRefunds takes 30 s (the client gives up after 10 s) and every later one fails with 500. " +
				"A failed look-up is not \"nothing found\": resending refunds twice. Without an answer from the provider, r1 stays needs_check.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusNeedsCheck, Reason: "no reply after 10s"}},
			Charges: plainCharge(RefundSeed{Amount: suiteAmount, Reference: suiteRequest, Key: "refund-r1", Age: 7 * 24 * time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			LookupFaults: []world.Fault{{Request: 1, Kind: world.FaultSlow, Processing: 30 * time.Second},
				{Kind: world.FaultHTTPError, Status: 500, Type: "api_error", Message: "internal error"}},
			Phases:  oneCall(),
			Defects: map[string]string{InvNoDoubleRefund: DefectBlindResend, InvExpectedEndState: DefectBlindResend},
		},
		{
			Name:   "in-flight-lands-before-refusal",
			Expect: expectEnd(1, rk.StatusNeedsCheck, rk.StatusDone),
			Title:  "An earlier run's request lands between the look-up and the send",
			Description: "The charge of 10000 has 6000 refunded for other orders. 20 s ago an earlier run of this code sent r1's refund (its key and reference); the provider is still working on it, " +
				"the run gave up and left r1 needs_check. This run's look-up finds nothing yet; the old request lands at 120 ms; this run's request is refused " +
				"400 invalid_request_error (\"greater than what is left to refund (1500)\") by a front end that checks the amount before the idempotency layer. " +
				"The refusal is not proof that nothing happened: the record was unknown to begin with, and here the earlier request is the very reason for the refusal. " +
				"failed loses a refund that happened; needs_check is right, or done if a later look-up finds it.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusNeedsCheck, Reason: "no reply after 10s"}},
			Charges: plainCharge(RefundSeed{Amount: 6000, Reference: "r0", Key: "refund-r0", Age: 72 * time.Hour},
				RefundSeed{Amount: suiteAmount, Reference: suiteRequest, Key: "refund-r1", Age: 20 * time.Second, LandsIn: 120 * time.Millisecond, ForRequest: suiteRequest, BySubmission: true}),
			Faults: []world.Fault{{Request: 1, Kind: world.FaultHTTPError, Status: 400, Type: "invalid_request_error", BeforeKeys: true,
				Message: "refund amount 2500 is greater than what is left to refund (1500)"}},
			Phases:  oneCall(),
			Defects: map[string]string{InvRefundRecorded: DefectUnknownAsFailed, InvExpectedEndState: DefectUnknownAsFailed},
		},
		{
			Name:   "caller-cancels",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "The caller cancels mid-run, then a later run resumes",
			Description: "Every reply from the provider is lost, though the first request applied the refund. At 15 s worker-1's caller stops waiting and cancels the context. " +
				"From then on nothing more may be sent, and the record must be left so a later run can resume safely: not failed (a request may have landed), not processing. " +
				"Ten minutes later, the outage over, worker-2 handles r1: one refund in all, done.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{lostReply(0)},
			Phases: []Phase{
				{Name: "run 1", Invocations: []Invocation{{Worker: "worker-1", RequestID: suiteRequest, CancelAfter: 15 * time.Second}}},
				{Name: "run 2", After: 10 * time.Minute, ResetFaults: true, Invocations: []Invocation{{Worker: "worker-2", RequestID: suiteRequest}}},
			},
			Defects: map[string]string{InvRefundRecorded: DefectUnknownAsFailed, InvExpectedEndState: DefectUnknownAsFailed},
		},
		{
			Name:   "caller-deadline",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "The caller's deadline passes mid-request, then a later run resumes",
			Description: "worker-1's caller gives it a context deadline of 13 s. Every reply from the provider is lost, though the first request applied the refund: " +
				"the first attempt times out at 10 s, and the deadline passes while the second is in flight. Nothing more may be sent, " +
				"and the record must not say failed (a request landed) nor stay processing. Ten minutes later, the outage over, worker-2 handles r1: one refund in all, done.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{lostReply(0)},
			Phases: []Phase{
				{Name: "run 1", Invocations: []Invocation{{Worker: "worker-1", RequestID: suiteRequest, Timeout: 13 * time.Second}}},
				{Name: "run 2", After: 10 * time.Minute, ResetFaults: true, Invocations: []Invocation{{Worker: "worker-2", RequestID: suiteRequest}}},
			},
			Defects: map[string]string{InvRefundRecorded: DefectUnknownAsFailed, InvExpectedEndState: DefectUnknownAsFailed},
		},
		{
			Name:  "crash-and-rerun",
			Title: "A crash, then a second run",
			Description: "The first run's process dies at a store or provider call: before it, then after it, at every call in turn " +
				"(between the provider call and the database write included). Ten minutes later a second run handles r1 again: " +
				"one refund, a final status, nothing stuck.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Phases: []Phase{
				{Name: "run 1", Invocations: []Invocation{{Worker: "worker-1", RequestID: suiteRequest}}},
				{Name: "run 2", After: 10 * time.Minute, Invocations: []Invocation{{Worker: "worker-2", RequestID: suiteRequest}}},
			},
			Explore: Exploration{CrashPoints: CrashEveryBoundary, CrashWorker: "worker-1"},
			Defects: map[string]string{InvNoDoubleRefund: DefectCrashWindow, InvExclusiveClaim: DefectCrashWindow},
		},
		{
			Name:   "stale-claim",
			Expect: expectEnd(1, rk.StatusDone),
			Title:  "A stale claim",
			Description: "worker-0, running this same code, claimed r1 six minutes ago, sent the refund (under the key and reference this code sends) and died before recording it; its lease ran out a minute ago. " +
				"This run must take over and finish: one refund in total, done.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusProcessing,
				Owner: "worker-0", LeaseLeft: -time.Minute}},
			Charges: plainCharge(RefundSeed{Amount: suiteAmount, Reference: suiteRequest, Key: "refund-r1", Age: 6 * time.Minute, ForRequest: suiteRequest, BySubmission: true}),
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectCrashWindow, InvRefundRecorded: DefectCrashWindow, InvExpectedEndState: DefectCrashWindow},
		},
		{
			Name:   "live-claim",
			Expect: expectEnd(0, rk.StatusProcessing),
			Title:  "A live claim held by another worker",
			Description: "worker-9 claimed r1 a moment ago and is still working, its lease good for five more minutes. " +
				"This run must not call the provider and returns in_progress.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusProcessing,
				Owner: "worker-9", OwnerAlive: true, LeaseLeft: 5 * time.Minute}},
			Charges: plainCharge(),
			Phases:  oneCall(),
			Defects: map[string]string{InvOutcomeMatchesState: DefectCheckThenAct, InvExpectedEndState: DefectCheckThenAct},
		},
		{
			Name:   "week-later-key-expired",
			Expect: expectEnd(1, rk.StatusDone, rk.StatusNeedsCheck),
			Title:  "Retried a week later, after the key expired",
			Description: "A week ago an earlier run of this code sent the refund for r1 (with the key and reference it sends); the provider applied it, but the reply was lost and the record was left needs_check. " +
				"The provider has pruned the key since: a blind resend is a brand-new refund. A ListRefunds look-up finds the old one.",
			Records: []RecordSeed{{RequestID: suiteRequest, ChargeID: suiteCharge, Amount: suiteAmount, Currency: "usd", Status: rk.StatusNeedsCheck, Reason: "no reply after 10s"}},
			Charges: plainCharge(RefundSeed{Amount: suiteAmount, Reference: suiteRequest, Key: "refund-r1", Age: 7 * 24 * time.Hour, ForRequest: suiteRequest, BySubmission: true}),
			Phases:  oneCall(),
			Defects: map[string]string{InvNoDoubleRefund: DefectBlindResend, InvExpectedEndState: DefectBlindResend},
		},
		{
			Name:   "own-refund-after-expiry",
			Title:  "Its own lost refund, a week later",
			Expect: expectEnd(1, rk.StatusDone, rk.StatusNeedsCheck),
			Description: "During the first run every reply from the provider is lost, though the first request applied the refund. " +
				"If that run cannot find the refund, it leaves r1 needs_check. Eight days later, the outage long over and the key expired, a second run handles r1: " +
				"only the reference the first run stored with its refund lets a ListRefunds look-up (in either run) find it. " +
				"A refund sent without a reference is invisible, and a resend under the expired key refunds twice.",
			Records: []RecordSeed{pendingRecord()}, Charges: plainCharge(),
			Faults: []world.Fault{lostReply(0)},
			Phases: []Phase{
				{Name: "run 1", Invocations: []Invocation{{Worker: "worker-1", RequestID: suiteRequest}}},
				{Name: "run 2", After: 8 * 24 * time.Hour, ResetFaults: true, Invocations: []Invocation{{Worker: "worker-2", RequestID: suiteRequest}}},
			},
			Defects: map[string]string{InvNoDoubleRefund: DefectBlindResend, InvExpectedEndState: DefectBlindResend},
		},
	}
}

func intp(n int) *int { return &n }
