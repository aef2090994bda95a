package pyrun

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

// A worker's call is a conversation with the lane process that serves
// its run. The lane steps the worker's event loop until every task of it
// waits, then sends a batch: the harness calls its tasks began, the
// futures it gave up on (cancel), its next timer, and before them the
// calls it does not wait for (log lines), which the call's goroutine
// passes to the harness first, in order. The call's goroutine starts a
// goroutine for each harness call, which passes the engine's gate as the
// Go harness does, and then waits for the next answer of any of them (or
// the timer, or the caller's cancel): it hands that one answer to the
// lane and reads the next batch. A lone call with nothing else that could
// come first it answers itself (alone). Answers reach the worker's loop
// one at a time, each in the order the engine's scheduler made it, while
// the goroutines of every other worker wait: the scheduler takes its next
// step only once every goroutine of the run waits, and the call's
// goroutine, talking to the lane, does not. Workers of one run take turns
// at their lane through the run's lock, a channel of the run's bubble, so
// that one waiting for its turn waits as the scheduler sees it.

// toPython is one message to a worker's process.
type toPython struct {
	W      int64           `json:"w"`
	Start  bool            `json:"start,omitempty"`
	Drop   bool            `json:"drop,omitempty"`
	Now    int64           `json:"now"`
	Seed   *int64          `json:"seed,omitempty"`
	Args   []any           `json:"args,omitempty"`
	ID     int             `json:"id,omitempty"`
	OK     json.RawMessage `json:"ok,omitempty"`
	Raise  *Raised         `json:"raise,omitempty"`
	Cancel bool            `json:"cancel,omitempty"`
	Sync   *syncAnswer     `json:"sync,omitempty"`
}

type syncAnswer struct {
	OK    json.RawMessage `json:"ok,omitempty"`
	Raise *Raised         `json:"raise,omitempty"`
}

// fromPython is one message from a worker's process: a batch, a call
// that does not wait (Sync), or the call's end (Done).
type fromPython struct {
	Later  []laterCall     `json:"later"`
	Calls  []harnessCall   `json:"calls"`
	Cancel []int           `json:"cancel"`
	Timer  *int64          `json:"timer"`
	Out    string          `json:"out"`
	Drew   bool            `json:"drew"`
	Sync   *harnessCall    `json:"sync"`
	Done   bool            `json:"done"`
	Result json.RawMessage `json:"result"`
	Raise  *Raised         `json:"raise"`
}

type harnessCall struct {
	ID   int             `json:"id"`
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args"`
}

// laterCall is a harness call whose answer the code does not wait for (a
// log line), sent with the worker's next message (runtime.py's
// harness_call_later): what the code printed before it, whether it drew
// from its random source before it, and the call.
type laterCall struct {
	Out  string          `json:"out"`
	Drew bool            `json:"drew"`
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args"`
}

// event is what the call's goroutine hands the process next.
type event struct {
	id     int
	ok     json.RawMessage
	raised *Raised
	timer  int // the timer's generation
	gone   bool
}

type session struct {
	p    *Program
	w    *faultsim.Worker
	ctx  context.Context
	use  *runUse
	tag  int64
	out  io.Writer
	done bool // the lane has forgotten the worker: its call ended there

	mu     sync.Mutex
	queue  []event
	over   bool
	notify chan struct{}
	stop   chan struct{}

	// The call's goroutine alone reads and writes the rest.
	seq       int
	inflight  int
	cancels   map[int]context.CancelFunc
	cancelled bool // the caller's cancel was handed to the process
	armed     int64
	timerGen  int  // guarded by mu: timers read it
	mid       bool // between a message sent and the process's answer read
	drew      bool
}

// maxLine bounds one message from a lane.
const maxLine = 4 << 20

var tags atomic.Int64

func (p *Program) call(ctx context.Context, w *faultsim.Worker, use *runUse, seed int64, out io.Writer, args []any) Result {
	s := &session{p: p, w: w, ctx: ctx, use: use, tag: tags.Add(1), out: out,
		notify: make(chan struct{}, 1), stop: make(chan struct{}), cancels: map[int]context.CancelFunc{}}
	// A return, a panic, a crash or the run's end (a Goexit) ends the
	// worker: as its process would, it does nothing more.
	defer s.end()
	m := s.exchange(toPython{Start: true, Seed: &seed, Args: args})
	for {
		if m.Done {
			return Result{Value: m.Result, Raised: m.Raise}
		}
		if ans, ok := s.alone(m); ok {
			m = s.exchange(ans)
			continue
		}
		s.begin(m)
		m = s.exchange(s.next())
	}
}

// alone answers a batch of one harness call on the call's goroutine when
// nothing else can come first: no other call is out, no timer is armed
// and the caller never cancels. Its answer is then the next event,
// whatever the scheduler does, as it would be from a goroutine of its
// own; the call's goroutine passes the gate for it, under the same name.
// Most batches are such (a coroutine awaiting one call), and a goroutine,
// a context and a hand-over saved each time are some of a Python grade's
// cost over a Go grade's.
func (s *session) alone(m fromPython) (toPython, bool) {
	if len(m.Calls) != 1 || s.inflight > 0 || m.Timer != nil || s.ctx.Done() != nil {
		return toPython{}, false
	}
	s.mu.Lock()
	queued := len(s.queue)
	s.mu.Unlock()
	if queued > 0 {
		return toPython{}, false
	}
	for _, id := range m.Cancel {
		if c := s.cancels[id]; c != nil {
			c()
		}
	}
	if s.armed != 0 {
		s.armed = 0
		s.newTimer()
	}
	c := m.Calls[0]
	s.seq++
	v, raised := s.answer(s.ctx, c)
	if c.Fn == "sleep" {
		s.w.StepAs(fmt.Sprintf("py%06d/wake", s.seq))
	}
	ans := toPython{ID: c.ID, Raise: raised}
	if raised == nil {
		ans.OK = encode(v)
	}
	return ans, true
}

// exchange hands the lane one message for the worker and reads what the
// worker's loop does with it, holding the run's turn at the lane.
func (s *session) exchange(m toPython) fromPython {
	s.use.turn <- struct{}{}
	defer func() { <-s.use.turn }()
	s.mid = true
	s.send(m)
	got := s.read()
	s.mid = false
	s.done = got.Done
	return got
}

func (s *session) now() int64 { return int64(s.w.Trace().Since()) }

func (s *session) send(m toPython) {
	m.W, m.Now = s.tag, s.now()
	l := s.use.lane // held: its buffer is ours
	l.wbuf = appendToPython(l.wbuf[:0], &m)
	if _, err := l.conn.Write(l.wbuf); err != nil {
		s.lost(err)
	}
}

// lost is a lane that went away mid-call (killed by a limit, or os._exit
// in the submission): the call panics, as a Go call whose process
// misbehaved would, and the lane serves no one again.
//
// The message says how the process ended, as its zygote saw it: a crash
// of the interpreter (deep recursion overflowing the C stack), a limit
// (CPU time), or an exit of the code's own.
func (s *session) lost(err error) {
	s.use.lane.broken.Store(true)
	s.done = true
	how, limit := s.p.z.ending(s.use.lane.pid)
	if how == "" {
		how = err.Error()
	}
	if limit != "" {
		s.p.stopAt(limit, fmt.Sprintf("the Python process of %s %s", s.w.ID, how))
	}
	panic(fmt.Sprintf("the Python process of %s ended before its call returned: %s", s.w.ID, how))
}

// read returns the process's next batch or end, answering the calls that
// do not wait on the way.
func (s *session) read() fromPython {
	r := s.use.lane.r
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			var more []byte
			more = append(more, line...)
			for err == bufio.ErrBufferFull && len(more) < maxLine {
				line, err = r.ReadSlice('\n')
				more = append(more, line...)
			}
			line = more
		}
		if err != nil {
			s.lost(err)
		}
		m, err := decodeFromPython(line)
		if err != nil {
			s.lost(err)
		}
		// The calls sent later, in the order the code made them, each
		// after what the code did before it: as if each had been sent on
		// its own and answered at once.
		for _, c := range m.Later {
			s.output(c.Out, c.Drew)
			if _, raised := s.answer(s.callContext(), harnessCall{Fn: c.Fn, Args: c.Args}); raised != nil {
				// Not for the code, which went on: the harness failed
				// under it, as a panic of a Go harness call would.
				panic(raised.Text())
			}
		}
		s.output(m.Out, m.Drew)
		if m.Sync == nil {
			return m
		}
		// On the call's goroutine, holding the gate as a Go call of the
		// harness would. A call of no name only has the engine take the
		// calls sent later, and tell the clock.
		var v any
		var raised *Raised
		if m.Sync.Fn != "" {
			v, raised = s.answer(s.callContext(), *m.Sync)
		}
		ans := &syncAnswer{Raise: raised}
		if raised == nil {
			ans.OK = encode(v)
		}
		s.send(toPython{Sync: ans})
	}
}

// output hands on what the code printed, and tells the engine once the
// code drew from its random source.
func (s *session) output(out string, drew bool) {
	if out != "" && s.out != nil {
		io.WriteString(s.out, out)
	}
	if drew && !s.drew {
		s.drew = true
		s.w.Seed() // the run now owes its seed more than its schedule
	}
}

// answer is the kit's answer to a harness call. A panic in the harness (a
// fault a scenario scripts: the database driver panics) is raised in the
// Python code as a RuntimeError that, escaping the call, is reported as a
// panic, as the Go panic would be.
func (s *session) answer(ctx context.Context, c harnessCall) (v any, raised *Raised) {
	defer func() {
		if p := recover(); p != nil {
			v, raised = nil, &Raised{Type: "RuntimeError", Message: fmt.Sprint(p), Bug: true}
		}
	}()
	return s.p.bind.Call(ctx, c.Fn, c.Args)
}

func encode(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic("pyrun: " + err.Error())
	}
	return data
}

// callContext is the context of a harness call begun now: the call's own
// until the process was told of its caller's cancel, after which the code
// that goes on (recording what it knows, in a finally) is no longer
// cut short by it, as Python's cancellation is delivered once.
func (s *session) callContext() context.Context {
	if s.cancelled {
		return context.WithoutCancel(s.ctx)
	}
	return s.ctx
}

// begin starts what a batch asks: a goroutine per harness call, the
// cancel of calls given up, the timer.
func (s *session) begin(m fromPython) {
	for _, id := range m.Cancel {
		if c := s.cancels[id]; c != nil {
			c()
		}
	}
	// Goroutines of one worker that reach the gate for calls of the same
	// name are ordered by their arrival, which the Go runtime decides.
	// When more than one call is out, each first passes a step of its own
	// name, so the scheduler releases them one at a time and they arrive
	// in an order it chose.
	order := s.inflight > 0 || len(m.Calls) > 1
	for _, c := range m.Calls {
		s.seq++
		s.inflight++
		ctx, cancel := context.WithCancel(s.callContext())
		s.cancels[c.ID] = cancel
		go s.harness(c, ctx, order, fmt.Sprintf("py%06d", s.seq))
	}
	switch {
	case m.Timer == nil:
		s.armed = 0
		s.newTimer()
	case *m.Timer != s.armed:
		s.armed = *m.Timer
		go s.timer(s.newTimer(), time.Duration(*m.Timer-s.now()))
	}
}

// newTimer makes every timer armed so far stale; its generation is the
// next timer's.
func (s *session) newTimer() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timerGen++
	return s.timerGen
}

func (s *session) harness(c harnessCall, ctx context.Context, order bool, step string) {
	sent := false
	defer func() {
		if !sent {
			// The worker died at its crash point, or the run ended.
			s.push(event{gone: true})
		}
	}()
	if order {
		s.w.StepAs(step)
	}
	v, raised := s.answer(ctx, c)
	if c.Fn == "sleep" {
		// A sleep ends on the clock, not at a step: the wake is one.
		s.w.StepAs(step + "/wake")
	}
	ev := event{id: c.ID, raised: raised}
	if raised == nil {
		ev.ok = encode(v)
	}
	s.push(ev)
	sent = true
}

func (s *session) timer(gen int, d time.Duration) {
	sent := false
	defer func() {
		if !sent {
			s.push(event{gone: true})
		}
	}()
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-s.stop:
		t.Stop()
		sent = true
		return
	}
	if s.stale(gen) {
		sent = true
		return
	}
	s.w.StepAs("py-timer")
	s.push(event{timer: gen})
	sent = true
}

func (s *session) stale(gen int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.over || gen != s.timerGen
}

func (s *session) push(ev event) {
	s.mu.Lock()
	if s.over {
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// next waits for what the process is told next: an answer, the timer, or
// the caller's cancel.
func (s *session) next() toPython {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			ev := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			switch {
			case ev.gone:
				if s.w.Dead() {
					runtime.Goexit()
				}
			case ev.timer != 0:
				if ev.timer == s.timerGen {
					s.armed = 0
					return toPython{}
				}
			default:
				s.inflight--
				delete(s.cancels, ev.id)
				return toPython{ID: ev.id, OK: ev.ok, Raise: ev.raised}
			}
			continue
		}
		s.mu.Unlock()
		var done <-chan struct{}
		if !s.cancelled {
			done = s.ctx.Done()
		}
		select {
		case <-s.notify:
		case <-done:
			s.cancelled = true
			return toPython{Cancel: true}
		}
	}
}

func (s *session) end() {
	s.mu.Lock()
	s.over = true
	s.mu.Unlock()
	close(s.stop)
	for _, c := range s.cancels {
		c()
	}
	if s.mid {
		// Ended inside an exchange: at the gate of a call the process
		// waits on (a run cut short, a crash), or by a harness panic.
		// The process is mid-message, and what it sends next would reach
		// the lane's next run: it serves no one again.
		s.use.lane.broken.Store(true)
	}
	if !s.done && !s.use.lane.broken.Load() {
		// The worker's process died (or the run ended): the lane drops its
		// loop, whose tasks never run again.
		s.use.turn <- struct{}{}
		if data, err := json.Marshal(toPython{W: s.tag, Drop: true}); err == nil {
			if _, err := s.use.lane.conn.Write(append(data, '\n')); err != nil {
				s.use.lane.broken.Store(true)
			}
		}
		<-s.use.turn
	}
}
