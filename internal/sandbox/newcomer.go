package sandbox

import "time"

// SetNewcomerPlace makes the pool keep one place beyond Size for a
// newcomer: a job whose key has nothing running and whose code has not
// run long or hit a limit lately (see observeLocked). Without it a
// newcomer among keys spinning endless loops waits for the first of their
// jobs to end, up to the wall-clock limit; with it the newcomer starts at
// once, at the usual grading priority, while the spinners' jobs run at
// LowNice. The place is one job's: when a job ends while the newcomer's
// place is taken, the newcomer's job takes over the place that freed, so
// the newcomer's place is free again and at most Size+1 jobs ever run.
// A key that has not yet shown itself a spinner may take it too (its first
// endless loop), and its job is lowered to LowNice once it runs long.
// Call it before the pool is used.
func (p *Pool) SetNewcomerPlace(on bool) { p.newcomerPlace = on }

// placesTakenLocked is how many of the Size places are taken: the running
// jobs but the one in the newcomer's place.
func (p *Pool) placesTakenLocked() int {
	n := len(p.running)
	if p.newcomer != nil {
		n--
	}
	return n
}

// mayTakeNewcomerPlaceLocked reports whether a job of key may have the
// newcomer's place: none of its key's jobs runs, and none ran long or hit
// a limit lately.
func (p *Pool) mayTakeNewcomerPlaceLocked(key string, now time.Time) bool {
	ks := p.keys[key]
	return ks == nil || ks.running == 0 && !p.markedLocked(ks, now)
}

// newcomerOpenLocked reports whether a job of key admitted now would start
// at once in the newcomer's place: it is kept and free, the key may take
// it, and no other job that may take it is waiting for it already.
func (p *Pool) newcomerOpenLocked(key string, now time.Time) bool {
	if !p.newcomerPlace || p.newcomer != nil || !p.mayTakeNewcomerPlaceLocked(key, now) {
		return false
	}
	for _, w := range p.waiting {
		if p.mayTakeNewcomerPlaceLocked(w.key, now) {
			return false
		}
	}
	return true
}

// dispatchNewcomerLocked gives the newcomer's place, when it is kept and
// free, to the first ready waiting job in the fair order that may have it.
func (p *Pool) dispatchNewcomerLocked(now time.Time) {
	if !p.newcomerPlace || p.newcomer != nil {
		return
	}
	best := p.bestWaitingLocked(now, func(t *Ticket) bool { return p.mayTakeNewcomerPlaceLocked(t.key, now) })
	if best >= 0 {
		p.startLocked(best, now, true)
	}
}

// freedLocked notes that running job t has ended: its place is free, and
// when it held one of the Size places while the newcomer's place was
// taken, the newcomer's job moves into the freed place and frees its own.
func (p *Pool) freedLocked(t *Ticket) {
	switch {
	case t == p.newcomer:
		p.newcomer = nil
	case p.newcomer != nil:
		p.newcomer.newcomer = false
		p.newcomer = nil
	}
}

// niceLocked is the CPU priority a job of ks's key starts at: LowNice for a
// key whose code ran long or hit a limit lately, else the children's own
// (Limits.Nice, DefaultNice by default). A job that runs long is lowered
// to LowNice as it runs (Ticket.Run), whatever its key.
func (p *Pool) niceLocked(ks *keyState, now time.Time) int {
	if p.markedLocked(ks, now) {
		return LowNice
	}
	return p.runner.Limits.withDefaults().Nice
}

// hitLimit reports whether a child was stopped at its CPU or wall-clock
// limit.
func hitLimit(out *Outcome) bool {
	return out != nil && (out.Ending == EndCPUTime || out.Ending == EndWallTime)
}
