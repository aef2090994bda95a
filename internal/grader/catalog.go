package grader

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

// InvariantIDs lists the invariants in report order.
var InvariantIDs = []string{
	InvNoDoubleRefund, InvDoneMeansRefunded, InvRefundRecorded, InvNoStuckProcessing,
	InvUnknownNotFailed, InvSameKey, InvPermanentNotRetried, InvBackoff, InvBoundedAttempts,
	InvMissingRecordClear, InvOutcomeMatchesState, InvExclusiveClaim, InvStopsWhenCancelled, InvGoroutinesEnd, InvExpectedEndState,
}

var invariantTitles = map[string]string{
	InvNoDoubleRefund:      "Never refunded twice",
	InvDoneMeansRefunded:   "Never marked done without an applied refund of the right amount",
	InvRefundRecorded:      "An applied refund is recorded as done or needs_check, never lost",
	InvNoStuckProcessing:   "Nothing left in processing when the function returns",
	InvUnknownNotFailed:    "An ambiguous outcome ends as needs_check, never failed",
	InvSameKey:             "The same idempotency key on every attempt and every run",
	InvPermanentNotRetried: "No resend after a definitive 4xx",
	InvBackoff:             "Waits between attempts are positive, respect Retry-After, carry jitter and have a growing ceiling",
	InvBoundedAttempts:     "At most 10 provider requests per call, and the call returns",
	InvMissingRecordClear:  "A missing record gives a clear error and no provider call",
	InvOutcomeMatchesState: "The returned outcome matches the stored status",
	InvExclusiveClaim:      "Only one worker works on a refund at a time",
	InvStopsWhenCancelled:  "Once the caller's context ends, no more refund requests are sent",
	InvGoroutinesEnd:       "Every goroutine a call starts ends once the call has returned and its requests are answered",
	InvExpectedEndState:    "The refund ends where it should: the status and the number of refunds the scenario leaves no choice about",
}

// invariantWhy says, for the report, why each invariant matters.
var invariantWhy = map[string]string{
	InvNoDoubleRefund:      "A second refund is money sent twice; the provider will not undo it for you.",
	InvDoneMeansRefunded:   "done tells support and the customer the money is on its way; if no refund exists, nobody will ever look again.",
	InvRefundRecorded:      "If the provider refunded but the record says pending or failed, a later run refunds again or a person chases a refund that already happened.",
	InvNoStuckProcessing:   "A record left in processing with no live owner blocks every later run from finishing it.",
	InvUnknownNotFailed:    "After a timeout, a 5xx or a 409 the refund may have happened; calling it failed invites a second refund.",
	InvSameKey:             "The provider deduplicates by idempotency key: a new key on a retry is a new refund.",
	InvPermanentNotRetried: "A definitive 4xx will answer the same way every time; retrying it only adds load and noise.",
	InvBackoff:             "Retrying at once, in lock step with every other worker, turns a provider blip into an outage; Retry-After says when to come back.",
	InvBoundedAttempts:     "An unbounded retry loop never gives the record a final status and keeps hammering the provider.",
	InvMissingRecordClear:  "A missing record is a bug upstream; it must surface as an error, not a panic, and must not move money.",
	InvOutcomeMatchesState: "Callers act on the returned outcome; if it disagrees with the database, one of them is lying.",
	InvExclusiveClaim:      "Two workers that both believe they own a refund will both send it, and both write its status.",
	InvStopsWhenCancelled:  "A caller that cancelled, or whose deadline passed, has stopped waiting and may hand the request to another worker: a run that keeps sending then overlaps the next one.",
	InvGoroutinesEnd:       "A worker serves request after request: a goroutine left blocked for ever on each abandoned attempt is memory that never comes back, until the process falls over.",
	InvExpectedEndState:    "Being safe is not enough: a refund the customer is owed must actually be made and recorded, and a run that can settle a refund must not leave it for someone else.",
}

// DefaultDefects maps each invariant to the seed defect (of the original
// snippet) its violation usually points to; scenarios override it.
var DefaultDefects = map[string]string{
	InvNoDoubleRefund:      DefectNoIdempotencyKey,
	InvDoneMeansRefunded:   DefectDoneAfterFailure,
	InvRefundRecorded:      DefectCrashWindow,
	InvNoStuckProcessing:   DefectCrashWindow,
	InvUnknownNotFailed:    DefectUnknownAsFailed,
	InvSameKey:             DefectNoIdempotencyKey,
	InvPermanentNotRetried: DefectSwallowedErrors,
	InvBackoff:             DefectNoBackoff,
	InvBoundedAttempts:     DefectNoBackoff,
	InvMissingRecordClear:  DefectMissingRecord,
	InvOutcomeMatchesState: DefectSwallowedErrors,
	InvExclusiveClaim:      DefectCheckThenAct,
	InvStopsWhenCancelled:  DefectSwallowedErrors,
	InvGoroutinesEnd:       DefectLeakedGoroutine,
	InvExpectedEndState:    DefectSwallowedErrors,
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
)

// DefectIDs lists the defects in report order.
var DefectIDs = []string{
	DefectSwallowedErrors, DefectDoneAfterFailure, DefectNoIdempotencyKey, DefectCheckThenAct,
	DefectCrashWindow, DefectNoBackoff, DefectMissingRecord, DefectUnknownAsFailed, DefectBlindResend, DefectLeakedGoroutine,
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
}

// InvariantTitle returns the plain title of an invariant id.
func InvariantTitle(id string) string { return invariantTitles[id] }

// Defect kinds: a defect of the original snippet, or a mistake that
// rewrites of it commonly make (the original has no statuses or keys to get
// wrong this way), reported apart so the starter is never told it "fixed"
// something it never attempted.
const (
	DefectKindOriginal = "original"
	DefectKindRewrite  = "rewrite"
)

// rewriteDefects are the defects of kind DefectKindRewrite.
var rewriteDefects = map[string]bool{DefectUnknownAsFailed: true, DefectBlindResend: true, DefectLeakedGoroutine: true}

// DefectKind returns DefectKindOriginal or DefectKindRewrite.
func DefectKind(id string) string {
	if rewriteDefects[id] {
		return DefectKindRewrite
	}
	return DefectKindOriginal
}

// DefectTitle returns the plain title of a defect id.
func DefectTitle(id string) string { return defectTitles[id] }
