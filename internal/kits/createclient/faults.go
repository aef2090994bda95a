package createclient

import (
	"fmt"
	"maps"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// A scenario's faults, as the engine numbers them (faultsim.FaultScript):
// the vendor's script (faults) and the failing calls (call_faults), each
// with an id by its place in the scenario, which stays the same when
// others are switched off.

var _ faultsim.FaultScript = Kit{}

// Faults implements faultsim.FaultScript.
func (Kit) Faults(s faultsim.Scenario) []faultsim.FaultRef {
	sc, ok := s.(*Scenario)
	if !ok {
		return nil
	}
	var out []faultsim.FaultRef
	for i, f := range sc.Faults {
		out = append(out, faultsim.FaultRef{ID: fmt.Sprintf("faults[%d]", i), Class: f.class(), Text: f.text(), Unmet: f.Unmet, Splits: f.Until > 0})
	}
	for i, f := range sc.CallFaults {
		class := gradewire.FaultStoreWrite
		if f.Call == "Get" || f.Call == "Search" {
			class = gradewire.FaultStoreRead
		}
		text := fmt.Sprintf("the failure of %s call %d", f.Call, f.Nth)
		if f.Until > 0 {
			text = fmt.Sprintf("the failures of %s calls from call %d until +%s", f.Call, f.Nth, f.Until)
		}
		out = append(out, faultsim.FaultRef{ID: fmt.Sprintf("call_faults[%d]", i), Class: class, Text: text, Splits: f.Until > 0})
	}
	return out
}

// Without implements faultsim.FaultScript.
func (Kit) Without(s faultsim.Scenario, drop []string) faultsim.Scenario {
	sc, ok := s.(*Scenario)
	if !ok {
		return s
	}
	c := *sc
	c.dropped = maps.Clone(sc.dropped)
	if c.dropped == nil {
		c.dropped = map[string]bool{}
	}
	for _, id := range drop {
		c.dropped[id] = true
	}
	return &c
}

func (f FaultSpec) class() string {
	switch f.Kind {
	case FaultConnect:
		return gradewire.FaultConnection
	case FaultTimeout:
		if f.Lands {
			return gradewire.FaultLostReply
		}
		return gradewire.FaultLostRequest
	case FaultSlow:
		return gradewire.FaultSlow
	case FaultStatus:
		switch {
		case f.Status == 429:
			return gradewire.Fault429
		case f.Status >= 500:
			return gradewire.Fault5xx
		}
		return gradewire.Fault4xx
	}
	return f.Kind
}

// text names f to follow "without".
func (f FaultSpec) text() string {
	which := fmt.Sprintf("create request %d", f.Request)
	if f.Until > 0 {
		which = fmt.Sprintf("create requests from %d until +%s", f.Request, f.Until)
	}
	switch f.Kind {
	case FaultConnect:
		return "the failed connection of " + which
	case FaultTimeout:
		if f.Lands {
			return "the lost answer to " + which
		}
		return "the loss on the way of " + which
	case FaultSlow:
		return "the slow handling of " + which
	case FaultStatus:
		return fmt.Sprintf("the %d answer to %s", f.Status, which)
	}
	return fmt.Sprintf("the %s fault of %s", f.Kind, which)
}
