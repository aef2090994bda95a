package faultsim

import (
	"slices"
	"sort"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// sortedEvents is t's events in the order of the clock (ties in the order
// written), and, for each event's place in t, its place among them (one
// more entry for t's end).
func sortedEvents(t *Trace) ([]Event, []int) {
	events := t.Events()
	idx := make([]int, len(events))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return events[idx[a]].At < events[idx[b]].At })
	sorted := make([]Event, len(events))
	pos := make([]int, len(events)+1)
	for n, o := range idx {
		sorted[n], pos[o] = events[o], n
	}
	pos[len(events)] = len(events)
	return sorted, pos
}

// place is where the event at seq in the trace as written is among the
// sorted events (pos, from sortedEvents).
func place(pos []int, seq int) int {
	if seq < 0 || seq >= len(pos) {
		return len(pos) - 1
	}
	return pos[seq]
}

// choicesOf is r's choices as a report keeps them: the faults sc scripts
// (sc as the grade explored it, before any variation), the crash point and
// the scheduler's picks; pos places trace positions among the sorted
// events.
func choicesOf(k Kit, sc Scenario, r *Run, pos []int) *gradewire.RunChoices {
	rc := &gradewire.RunChoices{Run: r.Ref()}
	if fs, ok := k.(FaultScript); ok {
		first, times := map[string]Firing{}, map[string]int{}
		for _, f := range r.Fired() {
			if _, ok := first[f.Fault]; !ok {
				first[f.Fault] = f
			}
			times[f.Fault]++
		}
		var off []string
		if r.Vary != nil {
			off = r.Vary.Drop
		}
		for _, ref := range fs.Faults(sc) {
			fc := gradewire.FaultChoice{ID: ref.ID, Class: ref.Class, Text: ref.Text, Off: slices.Contains(off, ref.ID), Splits: ref.Splits}
			if f, ok := first[ref.ID]; ok {
				fc.Fired, fc.At, fc.Event = true, formatOffset(f.At), place(pos, f.Seq)
			}
			if times[ref.ID] > 1 {
				fc.Times = times[ref.ID]
			}
			rc.Faults = append(rc.Faults, fc)
		}
	}
	if r.CrashWorker != "" {
		cc := &gradewire.CrashChoice{Worker: r.CrashWorker, Point: r.Crash.String()}
		if w := crashedWorker(r); w != nil {
			cc.Fired, cc.At = true, formatOffset(w.DiedAt)
		}
		rc.Crash = cc
	}
	for _, c := range r.Choices() {
		if len(rc.Picks) == gradewire.MaxPicksKept {
			rc.PicksTruncated = true
			break
		}
		rc.Picks = append(rc.Picks, gradewire.PickChoice{N: c.N, At: formatOffset(c.At), Event: place(pos, c.Seq), Ready: c.Ready, Picked: c.Picked, Nth: c.Nth})
	}
	return rc
}

// crashedWorker is the worker of r that died at r's crash point, nil if
// none did.
func crashedWorker(r *Run) *Worker {
	if r.CrashWorker == "" {
		return nil
	}
	for _, iv := range r.Calls {
		if iv.Call.Worker == r.CrashWorker && !iv.Restarted && iv.Worker != nil && iv.Worker.Died != "" {
			return iv.Worker
		}
	}
	return nil
}

// coverageOf is the classes of the faults that fired in any of runs (the
// crash class when a crash point struck), in gradewire's order, and the
// words of each fault sc scripts that fired in none.
func coverageOf(k Kit, sc Scenario, runs []*Run) (fired, unfired []string) {
	classes := map[string]bool{}
	ids := map[string]bool{}
	for _, r := range runs {
		for _, f := range r.Fired() {
			ids[f.Fault] = true
		}
		if crashedWorker(r) != nil {
			classes[gradewire.FaultCrash] = true
		}
	}
	if fs, ok := k.(FaultScript); ok {
		for _, ref := range fs.Faults(sc) {
			if ids[ref.ID] {
				classes[ref.Class] = true
			} else {
				unfired = append(unfired, ref.Text)
			}
		}
	}
	return ClassesInOrder(classes), unfired
}

// ClassesInOrder is the set's classes in gradewire's order, any other
// after them by name.
func ClassesInOrder(set map[string]bool) []string {
	var out []string
	for _, c := range gradewire.FaultClasses {
		if set[c] {
			out = append(out, c)
		}
	}
	var other []string
	for c := range set {
		if !slices.Contains(gradewire.FaultClasses, c) {
			other = append(other, c)
		}
	}
	slices.Sort(other)
	return append(out, other...)
}
