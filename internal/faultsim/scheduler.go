package faultsim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync"
	"testing/synctest"
	"time"
)

// Gate is the scheduler as the fakes see it. Every step that reads or
// changes shared state passes the gate first, so one actor at a time acts
// and the seed alone decides the order.
type Gate interface {
	// Pass parks the caller, acting for actor, until the scheduler picks
	// it. False means the run is over: the caller must stop.
	Pass(actor string) bool
	// Go starts f as an actor the run waits for.
	Go(actor string, f func())
}

// Why a run was stopped early.
const (
	StopNone  = ""
	StopTime  = "time"  // the scenario's budget of virtual time ran out
	StopSpin  = "spin"  // too many steps at one virtual instant
	StopSteps = "steps" // too many steps in all
	StopCut   = "cut"   // the run's variation stops it after its first events (Variation.StopAfter)
)

// Step limits. A loop that calls the harness without ever letting time
// pass would never reach a time budget, so steps at one instant are
// bounded; a loop that waits a millisecond between calls would take days
// of virtual time, so all steps are bounded too. A correct run of any kit
// so far takes under a hundred steps.
const (
	maxStepsAtInstant = 5000
	maxSteps          = 50000
)

// Scheduler is the seeded scheduler of one run. It runs in the bubble's
// root goroutine (Run); every actor parks in Pass, and once the whole
// bubble is blocked (synctest.Wait) the scheduler wakes one parked actor,
// chosen by its seeded source among them sorted by name and arrival. When
// no one is parked it waits, which lets the clock jump to the next timer.
type Scheduler struct {
	mu     sync.Mutex
	rng    *rand.Rand
	parked []*parked
	wake   chan struct{}
	live   int
	over   bool
	// ended is closed when the run is over (stop): Sleep wakes on it.
	ended     chan struct{}
	arrivals  int
	steps     int
	instant   time.Time
	atInstant int
	// spare are parked entries whose actor has resumed, kept for the next
	// Pass: a run takes thousands of steps, and each would otherwise make
	// a new entry and channel. (Per scheduler: a bubble's channels may not
	// be used from another bubble.)
	spare []*parked
	// trace, when set, is the run's: a choice records where in it it was
	// made.
	trace *Trace
	// choices are the picks the seeded source made, in order: where more
	// than one actor was parked, how many and which (see twins).
	choices []choice
	// refused counts the passes refused once the run was over: actors
	// that were still at work when a limit stopped it.
	refused int
	// vary, when set, changes the picks (a Variation; see variation.go).
	vary *schedVariation
}

// choice is one pick among more than one parked actor: how many, which
// (in the sorted order), and, for the run's record (Run.Choices), when,
// where in the trace, and who.
type choice struct {
	among, picked int
	at            time.Time
	seq           int
	ready         []string // nil past maxPicksNamed
	actor         string
	nth           int // among the parked entries of actor, by arrival
}

// maxPicksNamed bounds the picks whose ready actors a run keeps by name.
const maxPicksNamed = 256

type parked struct {
	actor   string
	arrival int
	resume  chan bool
}

func compareParked(a, b *parked) int {
	return cmp.Or(cmp.Compare(a.actor, b.actor), cmp.Compare(a.arrival, b.arrival))
}

// NewScheduler returns a scheduler whose choices come from seed alone.
func NewScheduler(seed int64) *Scheduler {
	return &Scheduler{rng: scheduleSource(seed), wake: make(chan struct{}, 1), ended: make(chan struct{})}
}

// scheduleSource is the source of a run's choices: twins replays it.
func scheduleSource(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
}

func (s *Scheduler) nudge() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Pass implements Gate.
func (s *Scheduler) Pass(actor string) bool {
	s.mu.Lock()
	if s.over {
		s.refused++
		s.mu.Unlock()
		return false
	}
	var p *parked
	if n := len(s.spare); n > 0 {
		p, s.spare = s.spare[n-1], s.spare[:n-1]
		p.actor, p.arrival = actor, s.arrivals
	} else {
		p = &parked{actor: actor, arrival: s.arrivals, resume: make(chan bool, 1)}
	}
	s.arrivals++
	// The runtime decides the order in which goroutines reach the gate;
	// keeping parked sorted by name and arrival makes the choice depend on
	// the seed alone, at the cost of one insertion rather than a sort of
	// them all at every step.
	i, _ := slices.BinarySearchFunc(s.parked, p, compareParked)
	s.parked = slices.Insert(s.parked, i, p)
	s.mu.Unlock()
	s.nudge()
	ok := <-p.resume
	// Whoever sent on resume took p out of parked first: no one else
	// holds it now.
	s.mu.Lock()
	s.spare = append(s.spare, p)
	s.mu.Unlock()
	return ok
}

// Go implements Gate.
func (s *Scheduler) Go(actor string, f func()) { s.Start(f) }

// Start runs f as an actor the run waits for, and returns release, which
// stops waiting for it early: for an actor blocked where no step can reach
// it (a goroutine of a process that died).
func (s *Scheduler) Start(f func()) (release func()) {
	s.mu.Lock()
	s.live++
	s.mu.Unlock()
	var once sync.Once
	release = func() {
		once.Do(func() {
			s.mu.Lock()
			s.live--
			s.mu.Unlock()
			s.nudge()
		})
	}
	go func() {
		defer release()
		f()
	}()
	return release
}

// Sleep sleeps d of the run's time, or until the run is over, whichever
// comes first; false when the run ended first. An actor that waits longer
// than Drain's grace (a phase a week later) uses it, so that a run stopped
// before then (a minimal run cut after its first events) leaves no
// goroutine asleep in its bubble: a kept grading child counts its
// goroutines after every job, and retires itself for one left behind.
func (s *Scheduler) Sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ended:
		return false
	}
}

// drainGrace bounds Drain: how much virtual time a stopped run's actors
// get to come back to the gate and be refused.
const drainGrace = 24 * time.Hour

// Drain lets the actors of a run a limit stopped come to an end: the
// clock runs on (a minute at a time, up to drainGrace) until every actor
// has finished, so an actor asleep when the limit struck wakes, is
// refused at the gate and exits, rather than staying asleep in a bubble
// whose clock no longer moves, which synctest would report as a
// deadlock. An actor blocked where no time reaches it stays blocked.
func (s *Scheduler) Drain() {
	for waited := time.Duration(0); waited < drainGrace; waited += time.Minute {
		s.mu.Lock()
		live := s.live
		s.mu.Unlock()
		if live == 0 {
			return
		}
		time.Sleep(time.Minute)
	}
}

// Refused is how many passes were refused once the run was over: none
// means no actor was still at work when a limit stopped it.
func (s *Scheduler) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// Steps is how many steps the scheduler has granted.
func (s *Scheduler) Steps() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.steps
}

// Run schedules until every actor has finished or a limit is reached, and
// says which limit (StopNone if none). Once it returns, Pass refuses
// everyone.
func (s *Scheduler) Run(budget time.Duration) string {
	timer := time.NewTimer(budget)
	defer timer.Stop()
	for {
		synctest.Wait()
		s.mu.Lock()
		switch {
		case s.atInstant >= maxStepsAtInstant:
			s.mu.Unlock()
			s.stop()
			return StopSpin
		case s.steps >= maxSteps:
			s.mu.Unlock()
			s.stop()
			return StopSteps
		}
		if v := s.vary; v != nil && v.stopAfter > 0 && s.trace != nil && s.trace.Len() >= v.stopAfter {
			// The run has written the events it was to keep: no one
			// takes another step, and the world stays as it is.
			s.mu.Unlock()
			s.stop()
			return StopCut
		}
		if n := len(s.parked); n > 0 {
			if v := s.vary; v != nil && v.holding(s) {
				// Every actor parked is held: wait for another to come,
				// or for the hold to give way.
				s.mu.Unlock()
				select {
				case <-s.wake:
				case <-timer.C:
					s.stop()
					return StopTime
				case <-time.After(holdPatience):
					s.mu.Lock()
					v.giveWay(s)
					s.mu.Unlock()
				}
				continue
			}
			i := 0
			if n > 1 {
				i = s.rng.IntN(n)
				if s.vary != nil {
					i = s.vary.pick(s, i)
				}
				c := choice{among: n, picked: i, at: time.Now(), actor: s.parked[i].actor}
				for k := i - 1; k >= 0 && s.parked[k].actor == c.actor; k-- {
					c.nth++
				}
				if s.trace != nil {
					c.seq = s.trace.Len()
				}
				if len(s.choices) < maxPicksNamed {
					c.ready = make([]string, n)
					for k, q := range s.parked {
						c.ready[k] = q.actor
					}
				}
				s.choices = append(s.choices, c)
			}
			p := s.parked[i]
			s.parked = slices.Delete(s.parked, i, i+1)
			s.steps++
			if now := time.Now(); !now.Equal(s.instant) {
				s.instant, s.atInstant = now, 0
			}
			s.atInstant++
			s.mu.Unlock()
			p.resume <- true
			continue
		}
		if s.live == 0 {
			s.mu.Unlock()
			// Goroutines left asleep must not act once the run is over.
			s.stop()
			return StopNone
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-timer.C:
			s.stop()
			return StopTime
		}
	}
}

func (s *Scheduler) stop() {
	s.mu.Lock()
	if !s.over {
		close(s.ended)
	}
	s.over = true
	refused := s.parked
	s.parked = nil
	s.refused += len(refused)
	s.mu.Unlock()
	for _, p := range refused {
		p.resume <- false
	}
}
