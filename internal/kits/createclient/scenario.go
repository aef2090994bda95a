package createclient

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/kits/scenariofile"
)

// File is a scenarios file: what a content author writes beside
// problem.md.
type File struct {
	Kit string `yaml:"kit"`
	// Check names the few scenarios the fast pre-grade runs; the content
	// loader reads and checks it (it is the same for every kit), so the
	// kit only lets it through.
	Check     []string   `yaml:"check"`
	Scenarios []Scenario `yaml:"scenarios"`
}

// Scenario is one situation the client is put in.
type Scenario struct {
	Name        string          `yaml:"name"`
	Title       string          `yaml:"title"`
	Description string          `yaml:"description"`
	Vendor      VendorSpec      `yaml:"vendor"`
	Operations  []OperationSpec `yaml:"operations"`
	// Faults script what the vendor does to particular requests.
	Faults []FaultSpec `yaml:"faults"`
	// CallFaults make store calls and searches fail.
	CallFaults []CallFaultSpec `yaml:"call_faults"`
	Calls      []CallSpec      `yaml:"calls"`
	// Crash names workers whose every crash point is explored; a crashed
	// worker calls again Restart later.
	Crash   []string      `yaml:"crash"`
	Restart time.Duration `yaml:"restart"`
	// Budget is the virtual time a run may take (default one hour).
	Budget time.Duration `yaml:"budget"`
	// Expect lists, per operation, the statuses a correct client may
	// leave it in.
	Expect map[string][]string `yaml:"expect"`
	// Checks are the invariants judged (default: all).
	Checks []string `yaml:"checks"`
	line   int
	// dropped are the ids of faults switched off (Kit.Without).
	dropped map[string]bool
}

// Line is the scenario's line in its file.
func (s *Scenario) Line() int { return s.line }

// VendorSpec is the kind of vendor and its network.
type VendorSpec struct {
	Name          string        `yaml:"name"`
	Keys          bool          `yaml:"keys"`
	KeyLifetime   time.Duration `yaml:"key_lifetime"`
	ReplaysErrors bool          `yaml:"replays_errors"`
	References    bool          `yaml:"references"`
	SearchLag     time.Duration `yaml:"search_lag"`
	LandsWithin   time.Duration `yaml:"lands_within"`
	// Timeout is the client's read timeout (default 10s); Latency is one
	// way (default 50ms); Processing how long a create takes (100ms).
	Timeout    time.Duration `yaml:"timeout"`
	Latency    time.Duration `yaml:"latency"`
	Processing time.Duration `yaml:"processing"`
}

// OperationSpec is an operation in the store when the run begins.
type OperationSpec struct {
	ID       string `yaml:"id"`
	Amount   int64  `yaml:"amount"`
	Currency string `yaml:"currency"`
	Payee    string `yaml:"payee"`
	Memo     string `yaml:"memo"`
	// Earlier is what an earlier process did with it (nothing if absent).
	Earlier *EarlierSpec `yaml:"earlier"`
}

// EarlierSpec is an operation's history before the run: a plan saved Ago,
// and whether the request it planned was sent and landed.
type EarlierSpec struct {
	Key       string        `yaml:"key"`
	Reference string        `yaml:"reference"`
	Ago       time.Duration `yaml:"ago"`
	// Sent: the request went out and its answer was lost. Landed: and the
	// vendor created the payment (then).
	Sent   bool `yaml:"sent"`
	Landed bool `yaml:"landed"`
	// SentAgo is when it was sent, if later than the plan was saved
	// (default: Ago, as it was saved).
	SentAgo time.Duration `yaml:"sent_ago"`
}

// sentAgo is how long before the run the earlier request was sent.
func (e *EarlierSpec) sentAgo() time.Duration {
	if e.SentAgo > 0 {
		return e.SentAgo
	}
	return e.Ago
}

// FaultSpec is what the vendor does to the Nth create request of the run
// (every worker's counted together, from 1).
type FaultSpec struct {
	Request int `yaml:"request"`
	// Kind: connect (nothing is sent; with Until, so is every request
	// from this one on sent before Until, as for a 408 or a 429), timeout (the answer is lost; Lands
	// says whether the request reached the vendor, LandsAfter how long
	// after it was sent it got there, if held up on the way), slow (the
	// vendor runs it at once and the create happens LandsAfter after it
	// was sent, answering then), status (the vendor answers Status; 408,
	// 429, 400 and 422 without running anything, a 5xx after trying,
	// having created it if Lands). Where the vendor's rules decide the
	// answer (a repeat under a key it remembers), they do, not the
	// script.
	Kind       string        `yaml:"kind"`
	Lands      bool          `yaml:"lands"`
	LandsAfter time.Duration `yaml:"lands_after"`
	Status     int           `yaml:"status"`
	RetryAfter time.Duration `yaml:"retry_after"`
	Until      time.Duration `yaml:"until"`
	// Unmet says why a correct client may never meet the fault
	// (faultsim.FaultRef.Unmet): the vendor does not read it.
	Unmet string `yaml:"unmet"`
}

// CallFaultSpec makes the Nth call named Call in the run (all workers
// counted together, from 1) fail without reading or changing anything, as
// a database or a search index that times out would. With Until, every
// such call from the Nth on fails while the run's virtual clock is short
// of Until: an outage, however many times the client tries.
type CallFaultSpec struct {
	Call  string        `yaml:"call"`
	Nth   int           `yaml:"nth"`
	Until time.Duration `yaml:"until"`
}

// fails reports whether this spec fails the nth call named name, made at
// virtual time at.
func (f CallFaultSpec) fails(name string, nth int, at time.Duration) bool {
	if f.Call != name {
		return false
	}
	if f.Until > 0 {
		return nth >= f.Nth && at < f.Until
	}
	return nth == f.Nth
}

// faultableCalls are the calls a CallFaultSpec may name.
var faultableCalls = []string{"Get", "Claim", "SavePlan", "Finish", "Search"}

// CallSpec is one call of CreatePayment. A Redelivery call is the
// queue's (rule Q1): it comes only if a call of its operation returns an
// error, 15 minutes after that call returned; the operation's first
// redelivery follows its first such error, the second its second.
type CallSpec struct {
	Worker     string        `yaml:"worker"`
	Op         string        `yaml:"op"`
	At         time.Duration `yaml:"at"`
	Redelivery bool          `yaml:"redelivery"`
}

// redeliveryEvent names the event a redelivery waits for: the nth error
// returned by a call of op.
func redeliveryEvent(op string, nth int) string { return fmt.Sprintf("error %d of %s", nth, op) }

// Fault kinds.
const (
	FaultConnect = "connect"
	FaultTimeout = "timeout"
	FaultSlow    = "slow"
	FaultStatus  = "status"
)

var faultKinds = []string{FaultConnect, FaultTimeout, FaultSlow, FaultStatus}

var statuses = []string{"pending", "created", "failed", "unknown"}

// refusedStatuses are answered without creating anything; serverStatuses
// after trying.
var (
	refusedStatuses = []int{400, 408, 422, 429}
	serverStatuses  = []int{500, 502, 503}
)

// Network defaults.
const (
	defaultTimeout     = 10 * time.Second
	defaultLatency     = 50 * time.Millisecond
	defaultProcessing  = 100 * time.Millisecond
	defaultLandsWithin = 30 * time.Second
	defaultKeyLifetime = 24 * time.Hour
	defaultBudget      = time.Hour
)

// withDefaults fills what the author left out.
func (v VendorSpec) withDefaults() VendorSpec {
	if v.Name == "" {
		v.Name = "vendor"
	}
	if v.Keys && v.KeyLifetime == 0 {
		v.KeyLifetime = defaultKeyLifetime
	}
	if v.LandsWithin == 0 {
		v.LandsWithin = defaultLandsWithin
	}
	if v.Timeout == 0 {
		v.Timeout = defaultTimeout
	}
	if v.Latency == 0 {
		v.Latency = defaultLatency
	}
	if v.Processing == 0 {
		v.Processing = defaultProcessing
	}
	return v
}

// Plan implements faultsim.Scenario.
func (s *Scenario) Plan() faultsim.Plan {
	p := faultsim.Plan{Name: s.Name, Title: s.Title, Budget: s.Budget, Crash: s.Crash, Restart: s.Restart, Checks: s.Checks}
	if p.Budget == 0 {
		p.Budget = defaultBudget
	}
	nth := map[string]int{}
	for _, c := range s.Calls {
		call := faultsim.Call{Worker: c.Worker, At: c.At, Subject: c.Op}
		if c.Redelivery {
			nth[c.Op]++
			call.When, call.At = redeliveryEvent(c.Op, nth[c.Op]), redeliveryDelay
		}
		p.Calls = append(p.Calls, call)
	}
	if len(nth) > 0 {
		// Calls that wait for an event run in a phase (faultsim.Triggers).
		p.Phases = []faultsim.Phase{{Name: "run"}}
	}
	return p
}

// ParseScenarios reads a scenarios file. Every problem is an error that
// names file:line: an unknown field, fault kind, status or invariant, a
// call of an operation that does not exist, a crash of a worker that never
// runs.
func ParseScenarios(file string, data []byte) ([]*Scenario, error) {
	var f File
	decoded, err := scenariofile.Decode(file, data, &f)
	if err != nil {
		return nil, err
	}
	l := &linter{*decoded}
	if f.Kit != Name {
		l.Errf(l.Line("kit"), "kit is %q: this file is for kit %q", f.Kit, Name)
	}
	if len(f.Scenarios) == 0 {
		l.Errf(1, "the file declares no scenarios")
	}
	seen := map[string]bool{}
	out := make([]*Scenario, 0, len(f.Scenarios))
	for i := range f.Scenarios {
		sc := &f.Scenarios[i]
		sc.line = l.Line("scenarios", i)
		l.scenario(i, sc, seen)
		sc.Vendor = sc.Vendor.withDefaults()
		out = append(out, sc)
	}
	if len(l.Errs) > 0 {
		return nil, errors.Join(l.Errs...)
	}
	return out, nil
}

// linter checks what the decoder cannot, with lines from the node tree.
type linter struct{ scenariofile.Linter }

func (l *linter) scenario(i int, sc *Scenario, seen map[string]bool) {
	at := func(path ...any) int { return l.Line(append([]any{"scenarios", i}, path...)...) }
	name := sc.Name
	switch {
	case name == "":
		l.Errf(at(), "scenario %d has no name", i+1)
		name = fmt.Sprintf("#%d", i+1)
	case seen[name]:
		l.Errf(at("name"), "scenario %q: the name is used twice", name)
	}
	seen[name] = true
	ops := map[string]bool{}
	for k, op := range sc.Operations {
		switch {
		case op.ID == "":
			l.Errf(at("operations", k), "scenario %q: operation %d has no id", name, k+1)
		case ops[op.ID]:
			l.Errf(at("operations", k, "id"), "scenario %q: operation %q is declared twice", name, op.ID)
		}
		ops[op.ID] = true
		if op.Amount <= 0 {
			l.Errf(at("operations", k), "scenario %q: operation %q needs a positive amount", name, op.ID)
		}
		if e := op.Earlier; e != nil {
			if e.Landed && !e.Sent {
				l.Errf(at("operations", k, "earlier", "landed"), "scenario %q: operation %q landed but was never sent", name, op.ID)
			}
			if sc.Vendor.Keys && e.Key == "" {
				l.Errf(at("operations", k, "earlier"), "scenario %q: operation %q: a plan for a vendor with keys needs a key", name, op.ID)
			}
			if sc.Vendor.References && e.Reference == "" {
				l.Errf(at("operations", k, "earlier"), "scenario %q: operation %q: a plan for a vendor with references needs a reference", name, op.ID)
			}
			if e.SentAgo != 0 && (!e.Sent || e.SentAgo < 0 || e.SentAgo > e.Ago) {
				l.Errf(at("operations", k, "earlier", "sent_ago"), "scenario %q: operation %q: sent_ago is when the saved plan was sent: it needs sent: true and a time after the plan was saved (at most ago, %s)", name, op.ID, e.Ago)
			}
		}
	}
	if len(sc.Operations) == 0 {
		l.Errf(at(), "scenario %q has no operations", name)
	}
	workers := map[string]bool{}
	delivered, redelivered := map[string]bool{}, map[string]int{}
	for k, c := range sc.Calls {
		if c.Redelivery {
			redelivered[c.Op]++
			switch {
			case c.At != 0:
				l.Errf(at("calls", k, "at"), "scenario %q: a redelivery comes when rule Q1 says, 15 minutes after a call of %s returned an error: leave out at", name, c.Op)
			case !delivered[c.Op]:
				l.Errf(at("calls", k, "redelivery"), "scenario %q: a redelivery of %s follows a call of it, and none comes before (rule Q1)", name, c.Op)
			case redelivered[c.Op] > redeliveries:
				l.Errf(at("calls", k, "redelivery"), "scenario %q: the queue hands %s on at most %d times (rule Q1)", name, c.Op, redeliveries)
			}
		} else {
			delivered[c.Op] = true
		}
		if c.Worker == "" {
			l.Errf(at("calls", k), "scenario %q: call %d names no worker", name, k+1)
		}
		if workers[c.Worker] {
			l.Errf(at("calls", k, "worker"), "scenario %q: worker %q makes two calls (one process, one call)", name, c.Worker)
		}
		workers[c.Worker] = true
		if !ops[c.Op] {
			l.Errf(at("calls", k, "op"), "scenario %q: call of operation %q, which the scenario does not declare", name, c.Op)
		}
	}
	if len(sc.Calls) == 0 {
		l.Errf(at(), "scenario %q makes no calls", name)
	}
	for k, w := range sc.Crash {
		if !workers[w] {
			l.Errf(at("crash", k), "scenario %q: crash of worker %q, which makes no call", name, w)
		}
	}
	if len(sc.Crash) > 0 && sc.Restart <= 0 {
		l.Errf(at("crash"), "scenario %q: crashes need a restart delay (restart: 1m) so the operation can settle", name)
	}
	v := sc.Vendor.withDefaults()
	if !v.Keys && (v.KeyLifetime != 0 || v.ReplaysErrors) {
		l.Errf(at("vendor"), "scenario %q: key_lifetime and replays_errors need keys: true", name)
	}
	if !v.References && v.SearchLag != 0 {
		l.Errf(at("vendor", "search_lag"), "scenario %q: search_lag needs references: true", name)
	}
	requests := map[int]bool{}
	endless := 0 // the request from which connections fail while Until runs
	for k, f := range sc.Faults {
		fat := func(field string) int { return at("faults", k, field) }
		if f.Request < 1 {
			l.Errf(fat("request"), "scenario %q: fault %d: request counts from 1", name, k+1)
		}
		if requests[f.Request] || endless > 0 && f.Request > endless {
			l.Errf(fat("request"), "scenario %q: two faults for request %d", name, f.Request)
		}
		requests[f.Request] = true
		if f.Until != 0 {
			if !(f.Kind == FaultConnect || f.Kind == FaultStatus && (f.Status == 408 || f.Status == 429)) || f.Until < 0 {
				l.Errf(fat("until"), "scenario %q: until repeats a fault that does nothing (a failed connection, a 408 or a 429: rules V2, V9) from this request on until a time into the run: it needs one of those and a positive time", name)
			} else if endless == 0 {
				endless = f.Request
			}
		}
		switch f.Kind {
		case FaultConnect:
		case FaultTimeout:
			if f.LandsAfter != 0 && (!f.Lands || f.LandsAfter < 0 || f.LandsAfter+v.Processing > v.LandsWithin) {
				l.Errf(fat("lands_after"), "scenario %q: a lost request held up on the way needs lands: true, and reaches the vendor in time to be carried out within lands_within (%s) of its send (rule V1)", name, v.LandsWithin)
			}
		case FaultSlow:
			if f.LandsAfter <= 0 || f.LandsAfter > v.LandsWithin {
				l.Errf(fat("lands_after"), "scenario %q: a slow request lands after more than 0 and at most lands_within (%s) (rule V1)", name, v.LandsWithin)
			}
		case FaultStatus:
			switch {
			case f.Status == 409:
				l.Errf(fat("status"), "scenario %q: the vendor answers 409 only to a repeat of a key whose first request is still running (rule V6): script that (a slow request), not the 409", name)
			case !slices.Contains(refusedStatuses, f.Status) && !slices.Contains(serverStatuses, f.Status):
				l.Errf(fat("status"), "scenario %q: status %d is not one the fake vendor answers (want one of %v or %v)", name, f.Status, refusedStatuses, serverStatuses)
			}
			if f.Lands && !slices.Contains(serverStatuses, f.Status) {
				l.Errf(fat("lands"), "scenario %q: only a 5xx can follow a create that happened: a %d runs nothing (rules V9, V10)", name, f.Status)
			}
			if m, why := keyDecides(sc, v, f.Request); m != "" {
				l.Errf(fat("status"), "scenario %q: request %d resends %s under its key, so the vendor answers it by rule %s, not with a scripted %d: script the first request's answer instead", name, f.Request, m, why, f.Status)
			}
		default:
			l.Errf(fat("kind"), "scenario %q: unknown fault kind %q (want one of %s)", name, f.Kind, strings.Join(faultKinds, ", "))
		}
	}
	for k, f := range sc.CallFaults {
		if !slices.Contains(faultableCalls, f.Call) {
			l.Errf(at("call_faults", k, "call"), "scenario %q: call %q cannot be made to fail (want one of %s)", name, f.Call, strings.Join(faultableCalls, ", "))
		}
		if f.Nth < 1 {
			l.Errf(at("call_faults", k, "nth"), "scenario %q: nth counts from 1", name)
		}
		if f.Until < 0 {
			l.Errf(at("call_faults", k, "until"), "scenario %q: until is a time into the run, not %s", name, f.Until)
		}
	}
	for op, want := range sc.Expect {
		if !ops[op] {
			l.Errf(at("expect", op), "scenario %q: expect names operation %q, which the scenario does not declare", name, op)
		}
		for _, s := range want {
			if !slices.Contains(statuses, s) {
				l.Errf(at("expect", op), "scenario %q: unknown status %q (want one of %s)", name, s, strings.Join(statuses, ", "))
			}
		}
	}
	for k, id := range sc.Checks {
		if id != faultsim.Returns && !slices.ContainsFunc(catalogue, func(inv faultsim.Invariant) bool { return inv.ID == id }) {
			l.Errf(at("checks", k), "scenario %q: unknown invariant %q (want one of %s)", name, id, strings.Join(InvariantIDs(), ", "))
		}
	}
}

// keyDecides reports whether, at a vendor with keys, the vendor's key
// rules rather than a script decide the answer to request n, for a client
// that resends an operation under its one key as the page asks: an
// earlier request of the scenario reached the vendor as soon as it was
// sent (or an earlier process's did) and so is remembered under the key
// (rule V4): a repeat gets its answer (V5) or 409 while it runs (V6). It
// returns which request and the rule, or "" if the script may answer.
// Requests are counted across the run; a scenario with one operation is
// exact, and with several this errs on the side of refusing.
func keyDecides(sc *Scenario, v VendorSpec, n int) (earlier, rule string) {
	if !v.Keys {
		return "", ""
	}
	for _, op := range sc.Operations {
		if e := op.Earlier; e != nil && e.Sent && e.Landed && e.sentAgo() < v.KeyLifetime {
			return "the earlier process's request", "V5"
		}
	}
	for _, f := range sc.Faults {
		if f.Request >= n {
			continue
		}
		switch {
		case f.Kind == FaultSlow:
			return fmt.Sprintf("request %d", f.Request), "V6"
		case f.Kind == FaultTimeout && f.Lands && f.LandsAfter == 0,
			f.Kind == FaultStatus && slices.Contains(serverStatuses, f.Status) && (f.Lands || v.ReplaysErrors):
			return fmt.Sprintf("request %d", f.Request), "V5"
		}
	}
	return "", ""
}
