package world

import (
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/grader/refundkit"
)

// Store is the fake database of refund records. Claim is atomic because the
// gate lets one step run at a time; MarkProcessing is a blind write, which
// is what a check-then-act submission gets.
type Store struct {
	env     *Env
	records map[string]*refundkit.Record
	changes []Change
	reads   []Read
}

// Change is one write to a record, as the store's log keeps it.
type Change struct {
	At        time.Duration // since the run started
	Worker    string
	Call      string
	RequestID string
	Old, New  refundkit.Status
	Owner     string
	Lease     time.Time
	// The claim the write replaced: who held it and until when.
	OldOwner string
	OldLease time.Time
	// Seq is the write's place in the run's one order of steps (the
	// trace's length after it): it orders writes and requests that share
	// a virtual instant.
	Seq int
}

// Read is one store call that found the record and told its caller what
// state it is in, as the store's log keeps it: a GetRecord, or a Claim
// refused because the record is done or held under a live lease. Owner
// and LeaseUntil are the claim the record carried then.
type Read struct {
	At         time.Duration
	Seq        int
	Worker     string
	RequestID  string
	Status     refundkit.Status
	Owner      string
	LeaseUntil time.Time
}

// Put stores a record as it is before the run (the scenario's initial
// state). It writes no log line.
func (s *Store) Put(r refundkit.Record) {
	c := r
	s.records[r.RequestID] = &c
}

// Lookup returns a copy of a record, for the invariants.
func (s *Store) Lookup(requestID string) (refundkit.Record, bool) {
	r, ok := s.records[requestID]
	if !ok {
		return refundkit.Record{}, false
	}
	return *r, true
}

// Changes returns the log of writes.
func (s *Store) Changes() []Change { return append([]Change(nil), s.changes...) }

// Reads returns the log of reads that found a record.
func (s *Store) Reads() []Read { return append([]Read(nil), s.reads...) }

func (s *Store) get(w *Worker, id string) (*refundkit.Record, error) {
	r, ok := s.records[id]
	if !ok {
		s.env.recordStoreCall("", w.ID, faultsim.OutcomeError, "GetRecord(%s)", []any{id}, "not found")
		return nil, refundkit.ErrNotFound
	}
	s.env.recordWithRecord(w.ID, "GetRecord(%s)", []any{id}, "", r)
	s.read(w, r)
	c := *r
	return &c, nil
}

// read logs what w's call found of record r, just recorded in the trace.
func (s *Store) read(w *Worker, r *refundkit.Record) {
	s.reads = append(s.reads, Read{At: time.Since(s.env.start), Seq: s.env.TraceLen(), Worker: w.ID, RequestID: r.RequestID,
		Status: r.Status, Owner: r.Owner, LeaseUntil: r.LeaseUntil})
}

// recordWithRecord records a store call (see recordStoreCall) whose
// answer, after the words answer, is record r's state, as "processing by
// w1, lease until 10:00:30". The state goes in as plain values (the
// lease's clock as three numbers, as Format("15:04:05") would print it),
// so the line is made only if the trace is read.
func (e *Env) recordWithRecord(actor, call string, callArgs []any, answer string, r *refundkit.Record) {
	e.recordRuleWithRecord("", actor, faultsim.OutcomeOK, call, callArgs, answer, r)
}

// recordRuleWithRecord is recordWithRecord for a line rule decided.
func (e *Env) recordRuleWithRecord(rule, actor, outcome, call string, callArgs []any, answer string, r *refundkit.Record) {
	if r.Status != refundkit.StatusProcessing {
		e.recordStoreCall(rule, actor, outcome, call, callArgs, answer+"%s", r.Status)
		return
	}
	if r.LeaseUntil.IsZero() {
		e.recordStoreCall(rule, actor, outcome, call, callArgs, answer+"%s by %s, no lease", r.Status, r.Owner)
		return
	}
	h, m, sec := r.LeaseUntil.Clock()
	e.recordStoreCall(rule, actor, outcome, call, callArgs, answer+"%s by %s, lease until %02d:%02d:%02d", r.Status, r.Owner, h, m, sec)
}

func (s *Store) claim(w *Worker, id string, lease time.Duration) (bool, error) {
	r, ok := s.records[id]
	if !ok {
		s.env.recordStoreCall("", w.ID, faultsim.OutcomeError, "Claim(%s, lease %s)", []any{id, lease.Round(time.Millisecond)}, "not found")
		return false, refundkit.ErrNotFound
	}
	now := time.Now()
	free := r.Status == refundkit.StatusPending || r.Status == refundkit.StatusFailed || r.Status == refundkit.StatusNeedsCheck
	expired := r.Status == refundkit.StatusProcessing && !r.LeaseUntil.IsZero() && !now.Before(r.LeaseUntil)
	if !free && !expired {
		s.env.recordRuleWithRecord("S1", w.ID, faultsim.OutcomeError, "Claim(%s, lease %s)", []any{id, lease.Round(time.Millisecond)}, "not taken: ", r)
		s.read(w, r)
		return false, nil
	}
	var until time.Time
	if lease > 0 {
		until = now.Add(lease)
	}
	s.env.recordStoreCall("S1", w.ID, faultsim.OutcomeOK, "Claim(%s, lease %s)", []any{id, lease.Round(time.Millisecond)}, "taken")
	s.write(w, "Claim", r, refundkit.StatusProcessing, w.ID, until, "")
	return true, nil
}

func (s *Store) mark(w *Worker, call, id string, st refundkit.Status, reason string) error {
	r, ok := s.records[id]
	if !ok {
		s.env.recordStoreCall("", w.ID, faultsim.OutcomeError, "%s(%s)", []any{call, id}, "not found")
		return refundkit.ErrNotFound
	}
	if reason != "" {
		s.env.RecordStep("S2", w.ID, KindCall, faultsim.Step{Peer: LaneStore, Outcome: faultsim.OutcomeOK}, "%s(%s, %q)", call, id, reason)
	} else {
		s.env.RecordStep("S2", w.ID, KindCall, faultsim.Step{Peer: LaneStore, Outcome: faultsim.OutcomeOK}, "%s(%s)", call, id)
	}
	owner := ""
	if st == refundkit.StatusProcessing {
		owner = w.ID
	}
	s.write(w, call, r, st, owner, time.Time{}, reason)
	return nil
}

func (s *Store) write(w *Worker, call string, r *refundkit.Record, st refundkit.Status, owner string, lease time.Time, reason string) {
	now := time.Now()
	old, oldOwner, oldLease := r.Status, r.Owner, r.LeaseUntil
	r.Status, r.Owner, r.LeaseUntil, r.Reason, r.UpdatedAt = st, owner, lease, reason, now
	at := now.Sub(s.env.start)
	s.changes = append(s.changes, Change{At: at, Worker: w.ID, Call: call, RequestID: r.RequestID, Old: old, New: st, Owner: owner, Lease: lease,
		OldOwner: oldOwner, OldLease: oldLease})
	// Plain values, so the line is made only if the trace is read.
	switch {
	case st != refundkit.StatusProcessing:
		s.env.Record(LaneStore, KindState, "%s: %s -> %s", r.RequestID, old, st)
	case lease.IsZero():
		s.env.Record(LaneStore, KindState, "%s: %s -> %s (owner %s, no lease)", r.RequestID, old, st, owner)
	default:
		s.env.Record(LaneStore, KindState, "%s: %s -> %s (owner %s, lease %s)", r.RequestID, old, st, owner, lease.Sub(now).Round(time.Millisecond))
	}
	s.changes[len(s.changes)-1].Seq = s.env.TraceLen()
	s.env.statusWritten(r.RequestID, st)
}
