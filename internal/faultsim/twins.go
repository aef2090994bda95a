package faultsim

import "sync"

// A run is decided by its scenario, its crash point and its seed, and the
// seed reaches it in only two ways: the scheduler's picks among parked
// actors, and what the workers draw from sources seeded by it (math/rand,
// through the engine's stand-ins, and Worker.Seed). A run that drew
// nothing is decided by its picks alone; another seed whose source would
// pick the same, pick after pick, would make the same run again. Where a
// scenario has two workers, most of its seeds do: a suite of 50 seeds
// whose runs each choose six or so times between two actors repeats many
// schedules (in one suite so far, 128 distinct runs among 230).
//
// twins remembers the runs made of one scenario without a crash point, by
// their picks, as a tree, and finds for a new seed the run already made
// that the seed's source would repeat: its picks are replayed against the
// tree (rand.Rand gives the same numbers for the same calls), and where
// the tree ends in a run, that run is the seed's. The seed's run is then
// not made again: it is the twin's, under its own seed's label, and every
// report comes out as if it had been made. Runs that contradict each
// other (the same picks leading to different choices, which only code
// that is not decided by its schedule does, such as a select between two
// ready channels) turn twins off for the scenario.
type twins struct {
	mu   sync.Mutex
	root *twinNode
	off  bool
}

type twinNode struct {
	among int         // actors the pick made here was among; 0 where a run ended
	next  []*twinNode // by the actor picked
	run   *Run        // where a run ended: that run
}

// SeedsTracked is a Program through which every use of a worker's seed
// passes the engine (its math/rand draws go through the stand-ins of
// standins.go), so that a run that drew nothing owes nothing to its seed
// but its schedule. A Program that shares one natively compiled entry
// draws from math/rand directly, so a grade of it makes every run.
type SeedsTracked interface{ TracksSeeds() }

// newTwins returns the twins of one scenario's runs of prog, nil (never
// finding one) if prog's runs may owe their seed more than the schedule,
// or opt asks for every run.
func newTwins(prog Program, opt Options) *twins {
	if opt.EveryRun {
		return nil
	}
	if _, ok := prog.(SeedsTracked); !ok {
		return nil
	}
	return &twins{}
}

// of is the run already made that seed's would repeat, nil if none.
func (t *twins) of(seed int64) *Run {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.off || t.root == nil {
		return nil
	}
	src := scheduleSource(seed)
	n := t.root
	for n.run == nil {
		if n.next == nil {
			return nil
		}
		if n = n.next[src.IntN(n.among)]; n == nil {
			return nil
		}
	}
	return n.run
}

// add remembers r, a run made without a crash point, unless something in
// it depended on its seed beyond its picks.
func (t *twins) add(r *Run) {
	if t == nil || r.internal != nil || r.sched == nil {
		return
	}
	for _, iv := range r.Calls {
		if iv.Worker != nil && iv.Worker.seedRead.Load() {
			return
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.root == nil {
		t.root = &twinNode{}
	}
	n := t.root
	for _, c := range r.sched.choices {
		switch {
		case n.run != nil:
			t.off = true // a run ended where this one picked again
			return
		case n.next == nil:
			n.among, n.next = c.among, make([]*twinNode, c.among)
		case n.among != c.among:
			t.off = true
			return
		}
		if n.next[c.picked] == nil {
			n.next[c.picked] = &twinNode{}
		}
		n = n.next[c.picked]
	}
	switch {
	case n.next != nil:
		t.off = true // runs picked again where this one ended
	case n.run == nil:
		n.run = r
	}
}

// repeat makes r, a run not made, the twin's under r's own seed.
func (r *Run) repeat(twin *Run) {
	r.Trace, r.World, r.Calls = twin.Trace, twin.World, twin.Calls
	r.Stopped, r.Deadlock, r.Leftover, r.EndedAt = twin.Stopped, twin.Deadlock, twin.Leftover, twin.EndedAt
	r.Twin = twin
	// Its choices are the twin's: the same picks, the same faults fired.
	r.sched, r.fired = twin.sched, twin.fired
}
