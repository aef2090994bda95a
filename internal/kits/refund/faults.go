package refund

import (
	"fmt"
	"maps"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/refund/world"
)

// A scenario's faults, as the engine numbers them (faultsim.FaultScript):
// the provider's script for CreateRefund (faults, and each phase's),
// its script for ListRefunds (lookup_faults) and the harness calls that
// panic or fail (panics). Each has an id by its place in the scenario,
// which stays the same when others are switched off.

// Faults implements faultsim.FaultScript.
func (Kit) Faults(s faultsim.Scenario) []faultsim.FaultRef {
	sc, ok := s.(*Scenario)
	if !ok {
		return nil
	}
	var out []faultsim.FaultRef
	for i, f := range sc.Faults {
		out = append(out, faultsim.FaultRef{ID: fmt.Sprintf("faults[%d]", i), Class: faultClass(f), Text: faultText(f, "request", ""), Unmet: f.Unmet, Splits: f.Request == 0})
	}
	for pi, p := range sc.Phases {
		for i, f := range p.Faults {
			out = append(out, faultsim.FaultRef{ID: fmt.Sprintf("phases[%d].faults[%d]", pi, i), Class: faultClass(f),
				Text: faultText(f, "request", " of "+p.Name), Unmet: f.Unmet, Splits: f.Request == 0})
		}
	}
	for i, f := range sc.LookupFaults {
		out = append(out, faultsim.FaultRef{ID: fmt.Sprintf("lookup_faults[%d]", i), Class: faultClass(f), Text: faultText(f, "look-up", ""), Unmet: f.Unmet, Splits: f.Request == 0})
	}
	for i, r := range sc.Panics {
		ref := faultsim.FaultRef{ID: fmt.Sprintf("panics[%d]", i), Class: gradewire.FaultHarnessPanic,
			Text: fmt.Sprintf("the panic in %s call %d", r.Call, r.Nth)}
		if r.Error {
			ref.Class, ref.Text = gradewire.FaultStoreWrite, fmt.Sprintf("the database failure in %s call %d", r.Call, r.Nth)
			if r.Call == "GetRecord" {
				ref.Class = gradewire.FaultStoreRead
			}
		}
		out = append(out, ref)
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

// scripted is faults as the provider is given them: each named by its id
// (prefix[i]), those switched off left out.
func (s *Scenario) scripted(prefix string, faults []world.Fault) []world.Fault {
	var out []world.Fault
	for i, f := range faults {
		f.Ref = fmt.Sprintf("%s[%d]", prefix, i)
		if !s.dropped[f.Ref] {
			out = append(out, f)
		}
	}
	return out
}

// scriptedPanics is the scenario's panic rules as the world is given them.
func (s *Scenario) scriptedPanics() []world.PanicRule {
	var out []world.PanicRule
	for i, r := range s.Panics {
		r.Ref = fmt.Sprintf("panics[%d]", i)
		if !s.dropped[r.Ref] {
			out = append(out, r)
		}
	}
	return out
}

func faultClass(f world.Fault) string {
	switch f.Kind {
	case world.FaultLostReply:
		return gradewire.FaultLostReply
	case world.FaultLostRequest:
		return gradewire.FaultLostRequest
	case world.FaultConnection:
		return gradewire.FaultConnection
	case world.FaultSlow:
		return gradewire.FaultSlow
	case world.FaultHTTPError:
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

// faultText names f to follow "without": "the lost reply to request 3".
func faultText(f world.Fault, what, where string) string {
	which := fmt.Sprintf("%s %d%s", what, f.Request, where)
	if f.Request == 0 {
		which = fmt.Sprintf("every %s%s", what, where)
	}
	switch f.Kind {
	case world.FaultLostReply:
		return "the lost reply to " + which
	case world.FaultLostRequest:
		return "the loss on the way of " + which
	case world.FaultConnection:
		return "the connection error of " + which
	case world.FaultSlow:
		return "the slow handling of " + which
	case world.FaultHTTPError:
		return fmt.Sprintf("the %d answer to %s", f.Status, which)
	}
	return fmt.Sprintf("the %s fault of %s", f.Kind, which)
}

var _ faultsim.FaultScript = Kit{}
