package faultsim

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// A failing run carries more than its failure needs: faults that changed
// nothing that mattered, a crash point beside the point, the seed's
// interleavings of workers that could as well have gone in turn. shrink
// looks for a smallest variation of it (see variation.go) that still
// breaks the same invariant, by delta debugging (Zeller and Hildebrandt,
// "Simplifying and Isolating Failure-Inducing Input", 2002) over its
// choices: each fault that fired, the crash point, each call of the entry
// point (where there are several), and each pick that did not take the
// first actor ready. A choice left out is a fault switched off, no crash,
// a call not made, or a pick that takes the first actor ready (by name). The
// search is deterministic: the same run gives the same minimal run.
//
// Its budget is in runs, so that it stays deterministic: a scenario's
// search makes at most as many runs as the scenario's exploration made
// (minShrinkRuns at least, maxShrinkRuns at most), which keeps a failing
// grade within about twice its cost without shrinking: BenchmarkStarterShrink
// in both kits measures it, side by side (with the cut and the limits,
// about 1.5x of the CPU for one kit's starter, 1.2x for the other's: a
// cut run is short, and its calls unwind at the gate as a crashed
// worker's do, so its interpreters are used again). Counting only the runs that did not
// repeat a twin's would be tighter, but leaves the search for a race's
// one needed pick short of runs. shrinkWallLimit is a safety net only,
// for a submission whose runs are each slow.

const (
	minShrinkRuns   = 8
	maxShrinkRuns   = 48
	shrinkWallLimit = 10 * time.Second
)

// element is one choice of the failing run the search may leave out.
type element struct {
	fault string // a fault's id, or
	crash bool   // the crash point, or
	call  *Call  // a call of the entry point, or
	pick  Choice // a pick (N > 0)
}

// shrinkSearch is one scenario's search.
type shrinkSearch struct {
	k        Kit
	sc       Scenario
	prog     Program
	b        Bubble
	l        lanes
	inv      Invariant
	shown    *Run
	unfired  []string // faults that did not fire in the shown run: always off
	unmade   []string // calls that did not start in the shown run: always skipped
	runs     int
	budget   int
	deadline time.Time
	out      bool            // the budget ran out
	held     map[string]bool // variations tried that held, by fmt.Sprint
}

// shrink is the minimal run of shown, which broke inv; made is how many
// runs the scenario's exploration made. Nil when no variation of it could
// be made to fail (a run its variations do not reproduce).
func shrink(k Kit, sc Scenario, prog Program, b Bubble, opt Options, inv Invariant, shown *Run, made int) *gradewire.MinimalRun {
	s := &shrinkSearch{k: k, sc: sc, prog: prog, b: b, l: opt.lanes, inv: inv, shown: shown,
		budget: min(max(made, minShrinkRuns), maxShrinkRuns), deadline: time.Now().Add(shrinkWallLimit)}
	var all []element
	if fs, ok := k.(FaultScript); ok {
		fired := map[string]bool{}
		for _, f := range shown.Fired() {
			fired[f.Fault] = true
		}
		for _, ref := range fs.Faults(sc) {
			if fired[ref.ID] {
				all = append(all, element{fault: ref.ID})
			} else {
				s.unfired = append(s.unfired, ref.ID)
			}
		}
	}
	if shown.CrashWorker != "" {
		all = append(all, element{crash: true})
	}
	if len(shown.Plan.Calls) > 1 {
		for i, c := range shown.Plan.Calls {
			if slices.ContainsFunc(shown.Calls, func(iv *Invocation) bool { return iv.Call.Worker == c.Worker }) {
				all = append(all, element{call: &shown.Plan.Calls[i]})
			} else {
				s.unmade = append(s.unmade, c.Worker) // never started: always skipped
			}
		}
	}
	for _, c := range shown.Choices() {
		if c.Ready == nil {
			break // picks past those named cannot be forced by name
		}
		if c.Ready[0] != c.Picked || c.Nth != 0 {
			all = append(all, element{pick: c})
		}
	}
	// The shown run is the run that keeps every element, and fails: the
	// search starts from it. (Its variation that keeps them all is the
	// same run, pick for pick; faults that never fired in it stay off.)
	kept, v, r := s.choose(all)
	v, r, lim := s.split(kept, v, r)
	v, r, cut := s.cut(v, r, s.needed(kept, r, lim))
	return s.minimal(all, kept, v, r, cut, lim)
}

// limited is a fault the shrink made smaller: it took effect times in the
// run it was kept in, and the minimal run lets it take effect only limit
// times (Variation.Limits).
type limited struct {
	ref          FaultRef
	limit, times int
}

// split makes smaller each fault of kept that took effect more than once
// in the failing run of v (r; nil for the shown run) and may be limited
// (FaultRef.Splits: an outage of every request, a span of them): by
// bisection over how many times it takes effect, the fewest that still
// break the invariant. It returns the run and variation with every such
// limit, and the limits; v and r as they were when none could be made.
func (s *shrinkSearch) split(kept []element, v Variation, r *Run) (Variation, *Run, []limited) {
	fs, ok := s.k.(FaultScript)
	if !ok || s.out {
		return v, r, nil
	}
	base := r
	if base == nil {
		base = s.shown
	}
	if base.Stopped != StopNone {
		// A run a limit stopped (a loop with no end) met its faults as
		// often as it looped, thousands of times: each run of the
		// bisection would be as long, and the fault is no larger than
		// the loop made it.
		return v, r, nil
	}
	times := map[string]int{}
	for _, f := range base.Fired() {
		times[f.Fault]++
	}
	var out []limited
	for _, ref := range fs.Faults(s.sc) {
		if !ref.Splits || times[ref.ID] < 2 || !slices.ContainsFunc(kept, func(e element) bool { return e.fault == ref.ID }) {
			continue
		}
		// lo times hold (none is the fault left out, which the search
		// found needed); hi break the invariant.
		lo, hi := 0, times[ref.ID]
		lv, lr := v, (*Run)(nil)
		for hi-lo > 1 && !s.out {
			mid := lo + (hi-lo)/2
			tv := v
			tv.Limits = append(slices.Clone(v.Limits), gradewire.FaultLimit{ID: ref.ID, Times: mid})
			if tr, _ := s.tryVariation(tv); tr != nil {
				hi, lv, lr = mid, tv, tr
			} else {
				lo = mid
			}
		}
		if lr != nil {
			v, r = lv, lr
			out = append(out, limited{ref: ref, limit: hi, times: times[ref.ID]})
		}
	}
	return v, r, out
}

// choose is the smallest set of the shown run's elements found that
// still fails, with its variation and run; a nil run is the shown run,
// from which no element could go.
func (s *shrinkSearch) choose(all []element) ([]element, Variation, *Run) {
	if len(all) == 0 {
		return all, s.variation(all), nil
	}
	if r, v := s.try(nil); r != nil {
		return nil, v, r
	}
	if len(all) == 1 {
		return all, s.variation(all), nil
	}
	// The seed's picks are often many and seldom needed: first without
	// them all, at the cost of one run.
	start, v, r := all, Variation{}, (*Run)(nil)
	if i := slices.IndexFunc(all, func(e element) bool { return e.pick.N > 0 }); i > 0 {
		if pr, pv := s.try(all[:i]); pr != nil {
			start, v, r = all[:i], pv, pr
		}
	}
	kept, dv, dr := s.ddmin(start)
	if dr != nil {
		v, r = dv, dr
	}
	if r == nil {
		v = s.variation(all)
	}
	return kept, v, r
}

// needed is where in the failing run r (nil: the shown run) the last of
// the choices it keeps takes effect: the trace's length then. Each was
// found needed (without it the invariant held), and the run is the same
// without it up to there, so the invariant cannot break before it: the
// cut looks only after it. A kept fault counts from its first firing (of
// a limited one, its last allowed), a pick where it was made, the crash
// where the process died. 0 when the search ran out of runs, which leaves
// no choice known needed.
func (s *shrinkSearch) needed(kept []element, r *Run, lim []limited) int {
	if s.out {
		return 0
	}
	if r == nil {
		r = s.shown
	}
	nth := map[string]int{} // a fault's firing that is needed, from 1
	for _, e := range kept {
		if e.fault != "" {
			nth[e.fault] = 1
		}
	}
	for _, l := range lim {
		nth[l.ref.ID] = l.limit
	}
	at, seen := 0, map[string]int{}
	for _, f := range r.Fired() {
		seen[f.Fault]++
		if seen[f.Fault] == nth[f.Fault] {
			at = max(at, f.Seq)
		}
	}
	choices := r.Choices()
	for _, e := range kept {
		switch {
		case e.pick.N > 0 && e.pick.N <= len(choices):
			at = max(at, choices[e.pick.N-1].Seq)
		case e.crash:
			for _, iv := range r.Calls {
				if iv.Call.Worker == r.CrashWorker && iv.Worker != nil && iv.Worker.Died != "" {
					at = max(at, iv.Worker.DiedSeq)
				}
			}
		}
	}
	return at
}

// cut stops the failing run of v (r; nil for the shown run) where its
// invariant broke, when the invariant is one a run's prefix can break
// (Invariant.Prefix): the events after that changed nothing the
// invariant judges. It looks, by bisection over the run's events, for
// the fewest events of r that still break it, each a run of its own
// (Variation.StopAfter), and returns that run, its variation and how
// many events of r it left out; v and r as they were, and 0, when
// nothing could be cut.
func (s *shrinkSearch) cut(v Variation, r *Run, from int) (Variation, *Run, int) {
	if !s.inv.Prefix || s.out {
		return v, r, 0
	}
	base := r
	if base == nil {
		base = s.shown
	}
	if base.Stopped != StopNone {
		// A run a limit stopped (a loop with no end) is thousands of
		// events long: each run of the bisection would be nearly as long,
		// and what a report shows of it is its first events either way.
		return v, r, 0
	}
	total := base.Trace.Len()
	// lo events hold (none break anything, nor do those before the last
	// choice the run needs: from); hi break it.
	lo, hi := min(from, total), total
	cv, cr := v, (*Run)(nil)
	for hi-lo > 1 && !s.out {
		mid := lo + (hi-lo)/2
		tv := v
		tv.StopAfter = mid
		if tr, _ := s.tryVariation(tv); tr != nil {
			// The step that wrote the mid-th event may have written more.
			hi, cv, cr = min(mid, tr.Trace.Len()), tv, tr
		} else {
			lo = mid
		}
	}
	if cr == nil || cr.Trace.Len() >= total {
		return v, r, 0
	}
	return cv, cr, total - cr.Trace.Len()
}

// variation is the variation that keeps the elements of kept.
func (s *shrinkSearch) variation(kept []element) Variation {
	v := Variation{Scenario: s.shown.Plan.Name, Run: s.shown.Ref(), Rest: gradewire.RestFirst, NoCrash: true}
	v.Drop = append(v.Drop, s.unfired...)
	v.Skip = append(v.Skip, s.unmade...)
	keptFault, keptCall := map[string]bool{}, map[string]bool{}
	for _, e := range kept {
		switch {
		case e.fault != "":
			keptFault[e.fault] = true
		case e.call != nil:
			keptCall[e.call.Worker] = true
		case e.crash:
			v.NoCrash = false
		default:
			v.Picks = append(v.Picks, gradewire.Pick{N: e.pick.N, Actor: e.pick.Picked, Nth: e.pick.Nth})
		}
	}
	if s.shown.CrashWorker == "" {
		v.NoCrash = false
	}
	if len(s.shown.Plan.Calls) > 1 {
		for _, c := range s.shown.Plan.Calls {
			if !keptCall[c.Worker] && !slices.Contains(s.unmade, c.Worker) {
				v.Skip = append(v.Skip, c.Worker)
			}
		}
	}
	if fs, ok := s.k.(FaultScript); ok {
		for _, ref := range fs.Faults(s.sc) {
			if !keptFault[ref.ID] && !slices.Contains(v.Drop, ref.ID) {
				v.Drop = append(v.Drop, ref.ID)
			}
		}
	}
	return v
}

// try makes the run that keeps kept and returns it (and its variation)
// when it breaks the invariant; nil when it does not, or the budget is
// spent.
func (s *shrinkSearch) try(kept []element) (*Run, Variation) {
	return s.tryVariation(s.variation(kept))
}

// tryVariation is try for a variation made already.
func (s *shrinkSearch) tryVariation(v Variation) (*Run, Variation) {
	key := fmt.Sprint(v)
	if s.held[key] {
		return nil, v
	}
	if s.runs >= s.budget || time.Now().After(s.deadline) {
		s.out = true
		return nil, v
	}
	s.runs++
	r, err := Varied(s.k, s.sc, v)
	if err != nil {
		return nil, v
	}
	s.l.execute(s.b, s.k, s.prog, r, nil)
	if r.internal != nil {
		return nil, v
	}
	if ev, _ := s.inv.judge(r); len(ev) == 0 {
		if s.held == nil {
			s.held = map[string]bool{}
		}
		s.held[key] = true
		return nil, v
	}
	return r, v
}

// ddmin is delta debugging's minimising loop over c, which fails (the
// shown run): it returns a subset that fails, from which no chunk of the
// last granularity can be left out, with its run and variation; the run is
// nil when no subset smaller than c was found failing. Where the chunks
// are single elements, leaving one out is tried before keeping one alone:
// a failure usually needs more than one of a run's choices.
func (s *shrinkSearch) ddmin(c []element) ([]element, Variation, *Run) {
	var (
		v   Variation
		run *Run
	)
	n := 2
	for len(c) >= 2 && !s.out {
		chunks := split(c, n)
		reduced := false
		tryChunks := func() {
			for _, ch := range chunks {
				if r, cv := s.try(ch); r != nil {
					c, v, run, n, reduced = ch, cv, r, 2, true
					return
				}
			}
		}
		tryComplements := func() {
			for i := range chunks {
				rest := complement(chunks, i)
				if r, cv := s.try(rest); r != nil {
					c, v, run, n, reduced = rest, cv, r, max(n-1, 2), true
					return
				}
			}
		}
		switch {
		case n == len(c):
			// Each element alone kept is a subset of a complement that
			// held already: not worth a run.
			tryComplements()
		case n == 2:
			tryChunks()
		default:
			tryChunks()
			if !reduced {
				tryComplements()
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	return c, v, run
}

// split cuts c into n chunks of nearly equal length, in order.
func split(c []element, n int) [][]element {
	var out [][]element
	start := 0
	for i := range n {
		end := start + (len(c)-start)/(n-i)
		out = append(out, c[start:end])
		start = end
	}
	return out
}

// complement is every chunk but the ith, in order.
func complement(chunks [][]element, i int) []element {
	var out []element
	for j, ch := range chunks {
		if j != i {
			out = append(out, ch...)
		}
	}
	return out
}

// minimal is the report's minimal run: run, made under v, keeping kept of
// all, with its last cut events left out; a nil run is the shown run,
// from which nothing could go.
func (s *shrinkSearch) minimal(all, kept []element, v Variation, run *Run, cut int, lim []limited) *gradewire.MinimalRun {
	m := &gradewire.MinimalRun{Invariant: s.inv.ID, Variation: v, Removed: []string{}, Cut: cut, Runs: s.runs, Exhausted: s.out}
	if run == nil {
		m.Same, m.Trace = true, []gradewire.TraceEvent{}
		ev, _ := s.inv.judge(s.shown)
		m.Message, m.Steps = strings.Join(ev, "\n"), steps(s.k, s.shown, s.inv, ev, false)
		return m
	}
	ev, _ := s.inv.judge(run)
	m.Message = strings.Join(ev, "\n")
	refs := map[string]FaultRef{}
	if fs, ok := s.k.(FaultScript); ok {
		for _, ref := range fs.Faults(s.sc) {
			refs[ref.ID] = ref
		}
	}
	var picks []Choice
	for _, e := range all {
		if slices.ContainsFunc(kept, func(x element) bool {
			return x.fault == e.fault && x.crash == e.crash && x.call == e.call && x.pick.N == e.pick.N
		}) {
			continue
		}
		switch {
		case e.fault != "":
			m.Removed = append(m.Removed, refs[e.fault].Text)
		case e.crash:
			m.Removed = append(m.Removed, fmt.Sprintf("%s's crash %s", s.shown.CrashWorker, s.shown.Crash))
		case e.call != nil:
			m.Removed = append(m.Removed, fmt.Sprintf("%s's call %s(%s)", e.call.Worker, EntryName(s.k, s.prog), e.call.Subject))
		default:
			picks = append(picks, e.pick)
		}
	}
	switch len(picks) {
	case 0:
	case 1:
		p := picks[0]
		m.Removed = append(m.Removed, fmt.Sprintf("the seed's choice at %s of %s before %s (the actors ready at once go in the order of their names)",
			formatOffset(p.At), p.Picked, p.Ready[0]))
	default:
		m.Removed = append(m.Removed, fmt.Sprintf("%d of the seed's scheduling choices (the actors ready at once go in the order of their names)", len(picks)))
	}
	for _, l := range lim {
		m.Removed = append(m.Removed, limitWords(l))
	}
	events, _ := sortedEvents(run.Trace)
	if cut > 0 && len(events) > 0 {
		m.Removed = append(m.Removed, cutWords(cut, events[len(events)-1]))
	}
	if len(events) > maxTraceEvents {
		events = events[:maxTraceEvents]
	}
	for _, e := range events {
		m.Trace = append(m.Trace, wireEvent(e))
	}
	if m.Trace == nil {
		m.Trace = []gradewire.TraceEvent{}
	}
	m.Steps = steps(s.k, run, s.inv, ev, cut > 0)
	return m
}

// limitWords says, to follow "without", what a limit left out of a fault
// that took effect many times.
func limitWords(l limited) string {
	first := "its first time"
	if l.limit > 1 {
		first = fmt.Sprintf("its first %d times", l.limit)
	}
	return fmt.Sprintf("%s beyond %s (it took effect %d times)", l.ref.Text, first, l.times)
}

// cutWords says, to follow "without", what a cut left out: the n events
// after last, the cut run's last.
func cutWords(n int, last Event) string {
	what := fmt.Sprintf("the %d events", n)
	if n == 1 {
		what = "the event"
	}
	return fmt.Sprintf("%s after %s's “%s” at %s, which changed nothing of the outcome", what, last.Actor,
		clipWords(strings.TrimSuffix(last.Text, "."), 80), formatOffset(last.At))
}

// clipWords is s cut at a space to at most n bytes, with "..." where it
// was cut.
func clipWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "..."
}

// maxSteps bounds the sentences that tell a minimal run: the events that
// matter, then the invariant that breaks.
const maxStoryEvents = 5

// steps tells run in three to six sentences: the faults that fired and
// the crash, the calls of the entry point starting and ending, as many as
// fit in time order, and last the invariant it breaks. A run cut where
// the invariant broke (cut) tells its last event first of all, and says
// that nothing after it changed the outcome.
func steps(k Kit, run *Run, inv Invariant, ev []string, cut bool) []string {
	events, pos := sortedEvents(run.Trace)
	rank := make([]int, len(events)) // 0: not told; lower tells first
	last := -1
	if cut && len(events) > 0 {
		last = len(events) - 1
	}
	for _, f := range run.Fired() {
		if i := place(pos, f.Seq); i < len(events) {
			rank[i] = 1
		}
	}
	entry := run.Entry + "("
	for i, e := range events {
		switch {
		case rank[i] != 0:
		case e.Kind == KindCrash:
			rank[i] = 1
		case e.Kind == KindReply && strings.HasPrefix(e.Text, entry):
			rank[i] = 2
		case e.Kind == KindCall && strings.HasPrefix(e.Text, entry):
			rank[i] = 3
		}
	}
	var told []int
	if last >= 0 {
		told = append(told, last)
	}
	for r := 1; r <= 4 && len(told) < maxStoryEvents; r++ {
		for i := range events {
			want := i != last && (rank[i] == r || (r == 4 && rank[i] == 0 && len(told) < 2))
			if want && len(told) < maxStoryEvents {
				told = append(told, i)
			}
		}
	}
	slices.Sort(told)
	var out []string
	for _, i := range told {
		e := events[i]
		end := "."
		if i == last {
			end = ", and nothing after this changed the outcome."
		}
		out = append(out, fmt.Sprintf("At %s, %s: %s%s", formatOffset(e.At), e.Actor, strings.TrimSuffix(e.Text, "."), end))
	}
	broke := inv.Title
	if len(ev) > 0 {
		broke += ": " + strings.TrimSuffix(firstSentence(ev[0]), ".")
	}
	return append(out, "So this breaks "+lowerFirst(broke)+".")
}

// sentenceEnd is a full stop that ends one sentence where another
// begins.
var sentenceEnd = regexp.MustCompile(`[a-z0-9)"”]\. +[A-Z]`)

// firstSentence is the first sentence of evidence that may say more, a
// step being one sentence; the citation that ends the evidence ("(the
// page: ...; rules P1, P2).") comes along.
func firstSentence(ev string) string {
	loc := sentenceEnd.FindStringIndex(ev)
	if loc == nil {
		return ev
	}
	first := ev[:loc[0]+1] // up to the full stop
	if i := strings.LastIndex(ev, " (the page: "); i > loc[0] && strings.HasSuffix(strings.TrimSuffix(ev, "."), ")") {
		first += strings.TrimSuffix(ev[i:], ".")
	}
	return first + "."
}

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "I ") {
		return s
	}
	r := []rune(s)
	if len(r) > 1 && r[1] >= 'A' && r[1] <= 'Z' {
		return s // an acronym
	}
	return strings.ToLower(string(r[:1])) + string(r[1:])
}
