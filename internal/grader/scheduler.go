package grader

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing/synctest"
	"time"
)

// scheduler is the seeded scheduler of one run. It lives in the bubble's
// root goroutine. Every step that touches shared state parks its actor in
// Pass; once every goroutine of the bubble is blocked (synctest.Wait), the
// scheduler releases one parked actor chosen by a seeded random source.
// Only one actor runs at a time, so the same seed gives the same order of
// steps. When nobody is parked, it blocks, which lets the bubble's clock
// advance to the next sleeper.
type scheduler struct {
	mu     sync.Mutex
	rng    *rand.Rand
	parked []*parkedActor
	wake   chan struct{}
	live   int
	over   bool
	seq    int
	steps  int
	// instant is the virtual time of the last step, and atInstant how
	// many steps have run at it.
	instant   time.Time
	atInstant int
}

type parkedActor struct {
	actor string
	seq   int
	go_   chan bool
}

// compareParked orders parked actors by name, then by arrival: the order
// a seed's choices index, whatever order the goroutines parked in.
func compareParked(a, b *parkedActor) int {
	if c := strings.Compare(a.actor, b.actor); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

func newScheduler(seed int64) *scheduler {
	return &scheduler{rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)), wake: make(chan struct{}, 1)}
}

func (s *scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Pass implements refundkit.Gate.
func (s *scheduler) Pass(actor string) bool {
	s.mu.Lock()
	if s.over {
		s.mu.Unlock()
		return false
	}
	p := &parkedActor{actor: actor, seq: s.seq, go_: make(chan bool, 1)}
	s.seq++
	// parked stays in the order the seeded choice indexes (by actor, then
	// arrival), kept as actors arrive rather than sorted at every step.
	i, _ := slices.BinarySearchFunc(s.parked, p, compareParked)
	s.parked = slices.Insert(s.parked, i, p)
	s.mu.Unlock()
	s.signal()
	return <-p.go_
}

// Go implements refundkit.Gate.
func (s *scheduler) Go(actor string, f func()) { s.goActor(f) }

// goActor starts f as an actor the run waits for, and returns a function
// that stops waiting for it before it returns: for a worker whose process
// died while one of its goroutines is blocked where the gate cannot reach
// it, on a channel no one will ever send to.
func (s *scheduler) goActor(f func()) (release func()) {
	s.mu.Lock()
	s.live++
	s.mu.Unlock()
	var once sync.Once
	release = func() {
		once.Do(func() {
			s.mu.Lock()
			s.live--
			s.mu.Unlock()
			s.signal()
		})
	}
	go func() {
		defer release()
		f()
	}()
	return release
}

// maxStepsAtInstant bounds the steps of one run at one virtual instant: a
// loop that calls the harness without ever letting virtual time pass
// (retrying on an error that comes back at once) would otherwise never
// reach the time budget. maxSteps bounds them all: a loop that waits a
// millisecond between calls would take days of virtual time to reach it.
// A correct run takes a few dozen steps.
const (
	maxStepsAtInstant = 5000
	maxSteps          = 50000
)

// Why a run was stopped.
const (
	stoppedTime       = "time"
	stoppedSteps      = "steps"       // maxStepsAtInstant at one virtual instant
	stoppedTotalSteps = "total-steps" // maxSteps in all
)

// run schedules until every actor has finished, or until the budget of
// virtual time or steps is spent; it reports which ran out ("" if none).
// From then on Pass refuses everyone, so what is still running stops at its
// next step.
func (s *scheduler) run(budget time.Duration) (stopped string) {
	timer := time.NewTimer(budget)
	defer timer.Stop()
	for {
		synctest.Wait()
		s.mu.Lock()
		if s.atInstant >= maxStepsAtInstant {
			s.mu.Unlock()
			s.stop()
			return stoppedSteps
		}
		if s.steps >= maxSteps {
			s.mu.Unlock()
			s.stop()
			return stoppedTotalSteps
		}
		if n := len(s.parked); n > 0 {
			i := 0
			if n > 1 {
				i = s.rng.IntN(n)
			}
			p := s.parked[i]
			s.parked = append(s.parked[:i], s.parked[i+1:]...)
			s.steps++
			if now := time.Now(); !now.Equal(s.instant) {
				s.instant, s.atInstant = now, 0
			}
			s.atInstant++
			s.mu.Unlock()
			p.go_ <- true
			continue
		}
		if s.live == 0 {
			s.mu.Unlock()
			// A goroutine the submission left behind (one still asleep)
			// must not reach the world once the run is over.
			s.stop()
			return ""
		}
		s.mu.Unlock()
		select {
		case <-s.wake:
		case <-timer.C:
			s.stop()
			return stoppedTime
		}
	}
}

// stop ends the run: every parked actor and every later Pass is refused.
func (s *scheduler) stop() {
	s.mu.Lock()
	s.over = true
	stopped := s.parked
	s.parked = nil
	s.mu.Unlock()
	for _, p := range stopped {
		p.go_ <- false
	}
}
