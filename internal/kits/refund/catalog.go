package refund

import "strings"

// Invariant ids, checked on the ledger, the request log and the store after
// each run.
const (
	InvNoDoubleRefund      = "no-double-refund"
	InvDoneMeansRefunded   = "done-means-refunded"
	InvRefundRecorded      = "refund-recorded"
	InvNoStuckProcessing   = "no-stuck-processing"
	InvUnknownNotFailed    = "unknown-not-failed"
	InvSameKey             = "same-key"
	InvPermanentNotRetried = "permanent-not-retried"
	InvBackoff             = "backoff"
	InvBoundedAttempts     = "bounded-attempts"
	InvMissingRecordClear  = "missing-record-clear"
	InvOutcomeMatchesState = "outcome-matches-state"
	InvExclusiveClaim      = "exclusive-claim"
	InvExpectedEndState    = "expected-end-state"
	InvStopsWhenCancelled  = "stops-when-cancelled"
	InvGoroutinesEnd       = "goroutines-end"
)

// invariant is one entry of the refund kit's catalogue: the only table of
// invariants. ID is what scenarios and reports name it by; Title and Why
// are the report's words for it; Defect is the seed defect a violation
// points to, unless the scenario (Scenario.Defects) or the check says
// otherwise; Check judges one request in one finished run and returns
// the evidence of a violation, "" when it held.
type invariant struct {
	ID     string
	Title  string
	Why    string
	Defect string
	Check  func(*runFacts) string
	// Page is the rule as the problem page's list of what must hold words
	// it (verbatim, so a candidate recognises it), and Rules the ids of
	// the provider's and store's rules (world.Rules) it rests on: a
	// violation's evidence ends with both.
	Page  string
	Rules []string
	// Prefix: a violation in a run's first events stays one however the
	// run goes on (faultsim.Invariant.Prefix): it rests only on what the
	// provider applied or was sent, and the marks written, up to then.
	Prefix bool
}

// broken ends a violation's evidence with the rule it broke, in the
// page's words: ` (the page: "No request is refunded twice."; rules P1, P9)`.
func (c invariant) broken() string {
	s := " (the page: \"" + strings.TrimSuffix(c.Page, ".") + "\""
	switch len(c.Rules) {
	case 0:
	case 1:
		s += "; rule " + c.Rules[0]
	default:
		s += "; rules " + strings.Join(c.Rules, ", ")
	}
	return s + ")"
}

// catalogue is the refund invariants, in report order.
var catalogue = []invariant{
	{
		ID:     InvNoDoubleRefund,
		Title:  "Never refunded twice",
		Why:    "A second refund is money sent twice; the provider will not undo it for you.",
		Defect: DefectNoIdempotencyKey,
		Check:  checkNoDoubleRefund,
		Page:   "No request is refunded twice.",
		Rules:  []string{"P1", "P9"},
		Prefix: true,
	},
	{
		ID:     InvDoneMeansRefunded,
		Title:  "Never marked done without an applied refund of the right amount",
		Why:    "done tells support and the customer the money is on its way; if no refund exists, nobody will ever look again.",
		Defect: DefectDoneAfterFailure,
		Check:  checkDoneMeansRefunded,
		Page:   "No record is marked done unless the provider applied a refund of the right amount for it.",
		Rules:  []string{"P14"},
		Prefix: true,
	},
	{
		ID:     InvRefundRecorded,
		Title:  "An applied refund is recorded as done or needs_check, never lost",
		Why:    "If the provider refunded but the record says pending or failed, a later run refunds again or a person chases a refund that already happened.",
		Defect: DefectCrashWindow,
		Check:  checkRefundRecorded,
		Page:   "A refund the provider applied ends up recorded as done or needs_check, never lost.",
	},
	{
		ID:     InvNoStuckProcessing,
		Title:  "Nothing left in processing when the function returns",
		Why:    "A record left in processing with no live owner blocks every later run from finishing it.",
		Defect: DefectCrashWindow,
		Check:  checkNoStuckProcessing,
		Page:   "Nothing is left in processing when the function returns.",
		Rules:  []string{"S1"},
	},
	{
		ID:     InvUnknownNotFailed,
		Title:  "An ambiguous outcome ends as needs_check, never failed",
		Why:    "After a timeout, a 5xx or a 409 the refund may have happened; calling it failed invites a second refund.",
		Defect: DefectUnknownAsFailed,
		Check:  checkUnknownNotFailed,
		Page:   "An ambiguous outcome (the refund may or may not have happened) ends as needs_check, never failed",
		Rules:  []string{"N2", "P7", "P14"},
	},
	{
		ID:     InvSameKey,
		Title:  "The same idempotency key on every attempt and every run",
		Why:    "The provider deduplicates by idempotency key: a new key on a retry is a new refund.",
		Defect: DefectNoIdempotencyKey,
		Check:  checkSameKey,
		Page:   "Every attempt, in every run, for one request uses the same idempotency key.",
		Rules:  []string{"P1", "P2"},
		Prefix: true,
	},
	{
		ID:     InvPermanentNotRetried,
		Title:  "No resend after a definitive 4xx",
		Why:    "A definitive 4xx will answer the same way every time; retrying it only adds load and noise.",
		Defect: DefectSwallowedErrors,
		Check:  checkPermanentNotRetried,
		Page:   "Nothing is resent after a definitive 4xx (an invalid request, a missing charge).",
		Rules:  []string{"P3", "P11", "P12"},
		Prefix: true,
	},
	{
		ID:     InvBackoff,
		Title:  "Waits between attempts are positive, respect Retry-After, carry jitter and have a growing ceiling; a timeout of your own is at least 1 s",
		Why:    "Retrying at once, in lock step with every other worker, turns a provider blip into an outage; Retry-After says when to come back.",
		Defect: DefectNoBackoff,
		Check:  checkBackoff,
		Page:   "Waits between attempts are positive and never shorter than a Retry-After the provider sent.",
		Rules:  []string{"P13"},
	},
	{
		ID:     InvBoundedAttempts,
		Title:  "At most 10 provider requests per call, and the call returns",
		Why:    "An unbounded retry loop never gives the record a final status and keeps hammering the provider.",
		Defect: DefectNoBackoff,
		Check:  checkBoundedAttempts,
		Page:   "One call makes at most 10 requests to the provider, and returns.",
	},
	{
		ID:     InvMissingRecordClear,
		Title:  "A missing record gives a clear error and no provider call",
		Why:    "A missing record is a bug upstream; it must surface as an error, not a panic, and must not move money.",
		Defect: DefectMissingRecord,
		Check:  checkMissingRecordClear,
		Page:   "A missing record gives a clear error and no call to the provider.",
	},
	{
		ID:     InvOutcomeMatchesState,
		Title:  "The returned outcome matches the stored status",
		Why:    "Callers act on the returned outcome; if it disagrees with the database, one of them is lying.",
		Defect: DefectSwallowedErrors,
		Check:  checkOutcomeMatchesState,
		Page:   "The returned outcome matches the stored state",
	},
	{
		ID:     InvExclusiveClaim,
		Title:  "Only one worker works on a refund at a time",
		Why:    "Two workers that both believe they own a refund will both send it, and both write its status.",
		Defect: DefectCheckThenAct,
		Check:  checkExclusiveClaim,
		Page:   "Only one worker works on a refund at a time",
		Rules:  []string{"S1"},
		Prefix: true,
	},
	{
		ID:     InvStopsWhenCancelled,
		Title:  "Once the caller's context ends, no more refund requests are sent",
		Why:    "A caller that cancelled, or whose deadline passed, has stopped waiting and may hand the request to another worker: a run that keeps sending then overlaps the next one.",
		Defect: DefectSwallowedErrors,
		Check:  checkStopsWhenCancelled,
		Page:   "Once the caller's context has ended (cancelled, or past its deadline), no refund request leaves.",
		Rules:  []string{"N3"},
		Prefix: true,
	},
	{
		ID:     InvGoroutinesEnd,
		Title:  "Every goroutine a call starts ends once the call has returned and its requests are answered",
		Why:    "A worker serves request after request: a goroutine left blocked for ever on each abandoned attempt is memory that never comes back, until the process falls over.",
		Defect: DefectLeakedGoroutine,
		Check:  checkGoroutinesEnd,
		Page:   "Every goroutine a call starts has ended once the call has returned and the answers to its requests have come in",
	},
	{
		ID:     InvExpectedEndState,
		Title:  "The refund ends where it should: the status and the number of refunds the scenario leaves no choice about",
		Why:    "Being safe is not enough: a refund the customer is owed must actually be made and recorded, and a run that can settle a refund must not leave it for someone else.",
		Defect: DefectSwallowedErrors,
		Check:  checkExpectedEndState,
		Page:   "Where a scenario leaves only one right answer, the refund ends there",
	},
}

// InvariantIDs lists the invariants' ids in report order.
var InvariantIDs = func() []string {
	ids := make([]string, len(catalogue))
	for k, inv := range catalogue {
		ids[k] = inv.ID
	}
	return ids
}()

// invariantOf finds an invariant of the catalogue by id.
func invariantOf(id string) (invariant, bool) {
	for _, inv := range catalogue {
		if inv.ID == id {
			return inv, true
		}
	}
	return invariant{}, false
}

// Seed defects: the bugs of the original snippet.
const (
	DefectSwallowedErrors  = "swallowed-errors"
	DefectDoneAfterFailure = "done-after-failure"
	DefectNoIdempotencyKey = "no-idempotency-key"
	DefectCheckThenAct     = "check-then-act"
	DefectCrashWindow      = "crash-window"
	DefectNoBackoff        = "no-backoff"
	DefectMissingRecord    = "missing-record"
	DefectUnknownAsFailed  = "unknown-as-failed"
	DefectBlindResend      = "blind-resend-after-expiry"
	DefectLeakedGoroutine  = "leaked-goroutine"
	DefectLeaseTooShort    = "lease-too-short"
	DefectLeaseTooLong     = "lease-too-long"
	DefectNeverResends     = "never-resends"
)

// DefectIDs lists the defects in report order.
var DefectIDs = []string{
	DefectSwallowedErrors, DefectDoneAfterFailure, DefectNoIdempotencyKey, DefectCheckThenAct,
	DefectCrashWindow, DefectNoBackoff, DefectMissingRecord, DefectUnknownAsFailed, DefectBlindResend, DefectLeakedGoroutine,
	DefectLeaseTooShort, DefectLeaseTooLong, DefectNeverResends,
}

var defectTitles = map[string]string{
	DefectSwallowedErrors:  "Every error swallowed: failures are never told apart",
	DefectDoneAfterFailure: "Marked done even when every attempt failed",
	DefectNoIdempotencyKey: "No idempotency key: each retry is a new refund",
	DefectCheckThenAct:     "Check-then-act: two workers both pass the status check",
	DefectCrashWindow:      "A crash between the provider call and the database write",
	DefectNoBackoff:        "Retries with no backoff, no jitter, no bound",
	DefectMissingRecord:    "A missing record is not handled",
	DefectUnknownAsFailed:  "An unknown outcome recorded as failed",
	DefectBlindResend:      "A blind resend after the key expired refunds twice",
	DefectLeakedGoroutine:  "A goroutine left blocked for ever once the call returned",
	DefectLeaseTooShort:    "A lease shorter than the run: it runs out while the run still sends or writes",
	DefectLeaseTooLong:     "A lease over the page's ten minutes: a dead worker's refund is not taken over when it is run again",
	DefectNeverResends:     "A retry that never sends: after a failure the run waits or counts its tries, but never resends",
}

// InvariantTitle returns the plain title of an invariant id.
func InvariantTitle(id string) string {
	inv, _ := invariantOf(id)
	return inv.Title
}

// Defect kinds: a defect of the original snippet, or a mistake that
// rewrites of it commonly make (the original has no statuses or keys to get
// wrong this way), reported apart so the starter is never told it "fixed"
// something it never attempted.
const (
	DefectKindOriginal = "original"
	DefectKindRewrite  = "rewrite"
)

// rewriteDefects are the defects of kind DefectKindRewrite.
var rewriteDefects = map[string]bool{DefectUnknownAsFailed: true, DefectBlindResend: true, DefectLeakedGoroutine: true, DefectLeaseTooShort: true,
	DefectLeaseTooLong: true, DefectNeverResends: true}

// DefectKind returns DefectKindOriginal or DefectKindRewrite.
func DefectKind(id string) string {
	if rewriteDefects[id] {
		return DefectKindRewrite
	}
	return DefectKindOriginal
}

// DefectTitle returns the plain title of a defect id.
func DefectTitle(id string) string { return defectTitles[id] }
