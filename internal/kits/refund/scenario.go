package refund

import (
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/grader/refundkit"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// Scenario is one fault scenario, as data: the world before the run, the
// provider's scripted behaviour, who calls RefundMoney when, how many
// schedules or crash points to explore, and which invariants to check. The
// engine interprets it; nothing in the grader switches on a scenario's name.
// Authors write scenarios in a problem's scenarios file (ParseScenarios),
// whose fields are the yaml tags.
type Scenario struct {
	Name        string            `yaml:"name" json:"name"`
	Title       string            `yaml:"title" json:"title"`
	Description string            `yaml:"description" json:"description"` // plain words, for the report
	Records     []RecordSeed      `yaml:"records,omitempty" json:"records,omitempty"`
	Charges     []ChargeSeed      `yaml:"charges,omitempty" json:"charges,omitempty"`
	Faults      []world.Fault     `yaml:"faults,omitempty" json:"faults,omitempty"`
	Panics      []world.PanicRule `yaml:"panics,omitempty" json:"panics,omitempty"`
	// LookupFaults script the provider's ListRefunds answers (Request is
	// the ordinal of the look-up in the run).
	LookupFaults []world.Fault `yaml:"lookup_faults,omitempty" json:"lookup_faults,omitempty"`
	Phases       []Phase       `yaml:"phases" json:"phases"`
	Explore      Exploration   `yaml:"explore,omitempty" json:"explore,omitempty"`
	// Invariants to check; empty means all of them.
	Invariants []string `yaml:"invariants,omitempty" json:"invariants,omitempty"`
	// Defects maps an invariant to the seed defect its violation points to
	// in this scenario; invariants not listed point to their catalogue entry's.
	Defects map[string]string `yaml:"defects,omitempty" json:"defects,omitempty"`
	// Budget is the virtual time a run may take past its phases' offsets
	// before outstanding workers are stopped (default DefaultBudget).
	Budget time.Duration `yaml:"budget,omitempty" json:"budget,omitempty"`
	// Expect is where the refund must end, when a correct submission
	// leaves no choice (invariant expected-end-state); nil: not checked.
	Expect *Expectation `yaml:"expect,omitempty" json:"expect,omitempty"`
	line   int          // in its scenarios file
	// learned is what the submission sends for each request id in a
	// quiet world: the key and reference of history it made itself (see
	// Kit.Learn).
	learned map[string]sentParams
	// dropped are the ids of faults switched off (Kit.Without).
	dropped map[string]bool
}

// Line is the scenario's line in its scenarios file (0 when it was not
// read from one).
func (s *Scenario) Line() int { return s.line }

// Expectation is the end state of a request after the last phase.
type Expectation struct {
	// Status the record must end in; several mean any one of them.
	Status []refundkit.Status `yaml:"status,omitempty" json:"status,omitempty"`
	// Refunds is how many refunds the provider must hold for the request,
	// counting those made before the run; nil: any number.
	Refunds *int `yaml:"refunds,omitempty" json:"refunds,omitempty"`
	// Outcome, when set, is what every call for the request must return,
	// with no error: where the record leaves the call nothing to decide.
	Outcome refundkit.Outcome `yaml:"outcome,omitempty" json:"outcome,omitempty"`
}

// DefaultBudget is how much virtual time a run gets past its phase offsets.
const DefaultBudget = 48 * time.Hour

// RecordSeed is a refund record as it is before the run.
type RecordSeed struct {
	RequestID string           `yaml:"request_id" json:"request_id"`
	ChargeID  string           `yaml:"charge_id" json:"charge_id"`
	Amount    int64            `yaml:"amount" json:"amount"`
	Currency  string           `yaml:"currency,omitempty" json:"currency,omitempty"`
	Status    refundkit.Status `yaml:"status" json:"status"`
	Reason    string           `yaml:"reason,omitempty" json:"reason,omitempty"`
	// For a processing record: who holds it, whether that worker is still
	// alive, and how long its lease has left (negative: it expired that
	// long ago; zero: no lease).
	Owner      string        `yaml:"owner,omitempty" json:"owner,omitempty"`
	OwnerAlive bool          `yaml:"owner_alive,omitempty" json:"owner_alive,omitempty"`
	LeaseLeft  time.Duration `yaml:"lease_left,omitempty" json:"lease_left,omitempty"`
}

// ChargeSeed is a charge at the provider, with refunds made before the run.
type ChargeSeed struct {
	ID      string       `yaml:"id" json:"id"`
	Amount  int64        `yaml:"amount" json:"amount"`
	Refunds []RefundSeed `yaml:"refunds,omitempty" json:"refunds,omitempty"`
}

// RefundSeed is a refund applied before the run.
type RefundSeed struct {
	Amount    int64         `yaml:"amount" json:"amount"`
	Reference string        `yaml:"reference,omitempty" json:"reference,omitempty"`
	Key       string        `yaml:"key,omitempty" json:"key,omitempty"`
	Age       time.Duration `yaml:"age" json:"age"`
	// LandsIn, when positive, makes this a request still in flight when
	// the run starts (sent Age ago, by a worker that is gone): the provider
	// applies it LandsIn into the run, and until then its key is in use.
	LandsIn time.Duration `yaml:"lands_in,omitempty" json:"lands_in,omitempty"`
	// ForRequest names the refund request this refund was made for, so the
	// invariants count it (a second refund for it is a double refund).
	ForRequest string `yaml:"for_request,omitempty" json:"for_request,omitempty"`
	// BySubmission says an earlier run of the submission's own code made
	// it: it carries the idempotency key and the reference that code sends
	// for ForRequest, learned from a run in a quiet world before the
	// scenario (see learnSubmission), whatever their spelling. Key and
	// Reference then apply only if that run sent no refund request.
	BySubmission bool `yaml:"by_submission,omitempty" json:"by_submission,omitempty"`
	// KeyOnly, with BySubmission, keeps the Reference written here: the
	// earlier request carried the key the submission sends but another
	// reference (an older version of the code, spelling it another way).
	KeyOnly bool `yaml:"key_only,omitempty" json:"key_only,omitempty"`
}

// Phase is a group of invocations. A phase starts After the previous one
// ended (all its invocations returned, crashed or were stopped).
type Phase struct {
	Name        string        `yaml:"name" json:"name"`
	After       time.Duration `yaml:"after,omitempty" json:"after,omitempty"`
	Invocations []Invocation  `yaml:"invocations" json:"invocations"`
	// Faults, or ResetFaults with none, replace the provider's fault
	// script when the phase begins, request ordinals counting from the
	// phase's first request: the provider of a later phase can behave
	// differently (an outage over by then). Otherwise the script goes on.
	Faults      []world.Fault `yaml:"faults,omitempty" json:"faults,omitempty"`
	ResetFaults bool          `yaml:"reset_faults,omitempty" json:"reset_faults,omitempty"`
}

// Invocation is one call of RefundMoney by a worker (a process of its own).
type Invocation struct {
	Worker    string        `yaml:"worker" json:"worker"`
	At        time.Duration `yaml:"at,omitempty" json:"at,omitempty"` // offset from the phase's start
	RequestID string        `yaml:"request_id" json:"request_id"`
	// The caller stops waiting: CancelAfter cancels the call's context
	// that long after the call starts; Timeout gives it a deadline that
	// long after. Zero: the context never ends.
	CancelAfter time.Duration `yaml:"cancel_after,omitempty" json:"cancel_after,omitempty"`
	Timeout     time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// When, if set, starts the call the moment the run first reaches an
	// event (At then counts from it), not at the phase's start: a queue
	// that redelivers just as another run writes or hears back. A call
	// whose event never comes is never made.
	When *Trigger `yaml:"when,omitempty" json:"when,omitempty"`
}

// Trigger is an event of a run that starts an invocation; set one field.
type Trigger struct {
	// Status: a write first sets the invocation's record to it.
	Status refundkit.Status `yaml:"status,omitempty" json:"status,omitempty"`
	// Answered: a refund request of that worker (of the same phase) first
	// gets its answer, a reply or the client's timeout.
	Answered string `yaml:"answered,omitempty" json:"answered,omitempty"`
}

// contextEnds is when the invocation's context ends, since the call
// started, and how; zero when it never does.
func (inv Invocation) contextEnds() (time.Duration, string) {
	switch {
	case inv.CancelAfter > 0 && (inv.Timeout <= 0 || inv.CancelAfter <= inv.Timeout):
		return inv.CancelAfter, "cancelled"
	case inv.Timeout > 0:
		return inv.Timeout, "past its deadline"
	}
	return 0, ""
}

// Exploration says how many runs a scenario gets.
type Exploration struct {
	// Schedules is the number of seeded schedules (seeds job.Seed,
	// job.Seed+1, ...); 0 means 1.
	Schedules int `yaml:"schedules,omitempty" json:"schedules,omitempty"`
	// CrashPoints "every-boundary" crashes CrashWorker before and after each
	// of its store and provider calls in turn (found by a first run without
	// a crash), each run then continuing with the later phases.
	CrashPoints string `yaml:"crash_points,omitempty" json:"crash_points,omitempty"`
	CrashWorker string `yaml:"crash_worker,omitempty" json:"crash_worker,omitempty"`
}

// CrashEveryBoundary is the only crash exploration so far.
const CrashEveryBoundary = "every-boundary"

// Validate reports what in the scenario cannot be run.
func (s *Scenario) Validate() error {
	if s.Name == "" {
		return fmt.Errorf("refund: a scenario has no name")
	}
	if len(s.Phases) == 0 {
		return fmt.Errorf("refund: scenario %s has no phases", s.Name)
	}
	for _, f := range s.Faults {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("refund: scenario %s: %w", s.Name, err)
		}
	}
	for _, r := range s.Panics {
		if err := world.ValidatePanicRule(r); err != nil {
			return fmt.Errorf("refund: scenario %s: %w", s.Name, err)
		}
	}
	for _, f := range s.LookupFaults {
		if err := world.ValidateLookupFault(f); err != nil {
			return fmt.Errorf("refund: scenario %s: %w", s.Name, err)
		}
	}
	for _, id := range s.Invariants {
		if _, ok := invariantOf(id); !ok {
			return fmt.Errorf("refund: scenario %s names unknown invariant %q", s.Name, id)
		}
	}
	for inv, d := range s.Defects {
		if _, ok := invariantOf(inv); !ok {
			return fmt.Errorf("refund: scenario %s maps unknown invariant %q to a defect", s.Name, inv)
		}
		if _, ok := defectTitles[d]; !ok {
			return fmt.Errorf("refund: scenario %s names unknown defect %q", s.Name, d)
		}
	}
	for _, ch := range s.Charges {
		for _, rf := range ch.Refunds {
			if rf.LandsIn < 0 {
				return fmt.Errorf("refund: scenario %s: a refund on %s lands %s into the run, before it starts", s.Name, ch.ID, rf.LandsIn)
			}
			if rf.LandsIn > 0 && rf.Age+rf.LandsIn > world.MaxProcessing {
				return fmt.Errorf("refund: scenario %s: a request on %s sent %s before the run and landing %s into it would execute for %s; rule P14 ends execution within %s",
					s.Name, ch.ID, rf.Age, rf.LandsIn, rf.Age+rf.LandsIn, world.MaxProcessing)
			}
			if rf.KeyOnly && !rf.BySubmission {
				return fmt.Errorf("refund: scenario %s: a refund on %s keeps only the submission's key, but the submission did not make it", s.Name, ch.ID)
			}
			if rf.BySubmission && rf.ForRequest == "" {
				return fmt.Errorf("refund: scenario %s: a refund on %s made by the submission names no for_request", s.Name, ch.ID)
			}
		}
	}
	if s.Expect != nil && s.Expect.Refunds != nil && *s.Expect.Refunds < 0 {
		return fmt.Errorf("refund: scenario %s expects %d refunds", s.Name, *s.Expect.Refunds)
	}
	workers := map[string]bool{}
	for _, p := range s.Phases {
		for _, f := range p.Faults {
			if err := f.Validate(); err != nil {
				return fmt.Errorf("refund: scenario %s, phase %s: %w", s.Name, p.Name, err)
			}
		}
		for _, inv := range p.Invocations {
			if inv.Worker == "" || workers[inv.Worker] {
				return fmt.Errorf("refund: scenario %s: each invocation needs its own worker id (%q)", s.Name, inv.Worker)
			}
			if inv.CancelAfter < 0 || inv.Timeout < 0 {
				return fmt.Errorf("refund: scenario %s: %s's context ends before its call starts", s.Name, inv.Worker)
			}
			workers[inv.Worker] = true
		}
		for _, inv := range p.Invocations {
			if err := validateTrigger(p, inv); err != nil {
				return fmt.Errorf("refund: scenario %s: %s: %w", s.Name, inv.Worker, err)
			}
		}
	}
	if s.Explore.CrashPoints != "" {
		if s.Explore.CrashPoints != CrashEveryBoundary {
			return fmt.Errorf("refund: scenario %s: unknown crash exploration %q", s.Name, s.Explore.CrashPoints)
		}
		if !workers[s.Explore.CrashWorker] {
			return fmt.Errorf("refund: scenario %s: crash worker %q makes no invocation", s.Name, s.Explore.CrashWorker)
		}
	}
	return nil
}

func validateTrigger(p Phase, inv Invocation) error {
	t := inv.When
	if t == nil {
		return nil
	}
	switch {
	case (t.Status == "") == (t.Answered == ""):
		return fmt.Errorf("a trigger names a status or a worker's answer, one of the two")
	case t.Status != "":
		switch t.Status {
		case refundkit.StatusPending, refundkit.StatusProcessing, refundkit.StatusDone, refundkit.StatusFailed, refundkit.StatusNeedsCheck:
			return nil
		}
		return fmt.Errorf("the trigger names unknown status %q", t.Status)
	}
	for _, other := range p.Invocations {
		if other.Worker == t.Answered && other.Worker != inv.Worker {
			return nil
		}
	}
	return fmt.Errorf("the trigger waits for an answer to %q, which makes no call in phase %s", t.Answered, p.Name)
}

// checks reports whether the scenario checks invariant id.
func (s *Scenario) checks(id string) bool {
	if id == InvExpectedEndState && s.Expect == nil {
		return false // nothing to compare with
	}
	if len(s.Invariants) == 0 {
		return true
	}
	for _, x := range s.Invariants {
		if x == id {
			return true
		}
	}
	return false
}

// defectFor is the seed defect a violation of invariant id points to.
func (s *Scenario) defectFor(id string) string {
	if d, ok := s.Defects[id]; ok {
		return d
	}
	inv, _ := invariantOf(id)
	return inv.Defect
}

func (s *Scenario) budget() time.Duration {
	b := s.Budget
	if b <= 0 {
		b = DefaultBudget
	}
	for _, p := range s.Phases {
		b += p.After
		var last time.Duration
		for _, inv := range p.Invocations {
			if inv.At > last {
				last = inv.At
			}
		}
		b += last
	}
	return b
}
