package faultsim

import "sync"

// lanes bounds how many runs execute at once, across every scenario of a
// grade: runs are independent (each has its own bubble, world and
// workers), so while one scenario waits for its first run, which decides
// its crash points, another's runs keep the other cores busy. A lane is a
// token held for the length of one run.
type lanes chan struct{}

func newLanes(n int) lanes { return make(lanes, max(1, n)) }

// execute runs r on a lane; a nil lanes runs it at once. With twins (nil
// for none), a run without a crash point whose twin was made already is
// that twin's, not made again, and one made is remembered.
func (l lanes) execute(b Bubble, k Kit, prog Program, r *Run, tw *twins) {
	if l != nil {
		l <- struct{}{}
		defer func() { <-l }()
	}
	if r.Crash.Call != 0 {
		tw = nil
	}
	if twin := tw.of(r.Seed); twin != nil {
		r.repeat(twin)
		return
	}
	execute(b, k, prog, r)
	tw.add(r)
}

// runLanes executes runs, as many at once as the lanes allow, starting
// them in order; results land in the runs. With cut set, a run after one
// that cut(run) holds for does not start: it returns how many runs, from
// the first, were all made (every run when cut never held), which is the
// same whatever order the lanes finished in: a run after the first cut
// one may have started, and is left out all the same.
func runLanes(b Bubble, k Kit, prog Program, runs []*Run, l lanes, tw *twins, cut func(*Run) bool) int {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first = len(runs) // the first run, in order, that cut holds for
	)
	for i, r := range runs {
		if l != nil {
			l <- struct{}{}
		}
		mu.Lock()
		stop := first < i
		mu.Unlock()
		if stop {
			if l != nil {
				<-l
			}
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l != nil {
				defer func() { <-l }()
			}
			lanes(nil).execute(b, k, prog, r, tw)
			if cut != nil && cut(r) {
				mu.Lock()
				first = min(first, i)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return min(first+1, len(runs))
}

// inOrder calls do(i) for i in [0, n), up to width at once, and then(i) for
// each i in order, as soon as it and every one before it are done, so that
// what streams out keeps the suite's order whichever finished first. Once
// do(i) returns false no further i starts; then is called only for those
// that came before it and itself.
func inOrder(n, width int, do func(i int) bool, then func(i int)) {
	var (
		mu       sync.Mutex
		next     int
		reported int
		stopped  = n // the first i whose do returned false
		done     = make([]bool, n)
		wg       sync.WaitGroup
	)
	for range min(max(1, width), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= stopped || next == n {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				ok := do(i)
				mu.Lock()
				done[i] = true
				if !ok && i < stopped {
					stopped = i
				}
				for reported < n && reported <= stopped && done[reported] {
					then(reported)
					reported++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
