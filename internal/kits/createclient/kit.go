// Package createclient is the create-client family of code problems: a
// client that creates a payment at a vendor and must never create it twice,
// for vendors with idempotency keys, with only a searchable reference, or
// with neither. It holds the family's fakes (the operation store and the
// vendor), its scenario schema, its catalogue of invariants and its entry
// point; the submission sees only package createapi.
package createclient

//go:generate go run github.com/traefik/yaegi/cmd/yaegi extract -name createclient github.com/faultline-dev/faultline/internal/kits/createclient/createapi

import (
	"context"
	"fmt"
	"reflect"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/kits/createclient/createapi"
)

// Symbols holds the tables `yaegi extract` generates for createapi.
var Symbols = map[string]map[string]reflect.Value{}

// Name is the kit's name, as code.kit spells it.
const Name = "createclient"

// HarnessPath is the import path of the package submissions import.
const HarnessPath = "github.com/faultline-dev/faultline/internal/kits/createclient/createapi"

// EntryName is the function a submission declares.
const EntryName = "CreatePayment"

// Entry is the entry point's type.
type Entry = func(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error)

// Kit is the create-client family for faultsim.
type Kit struct{}

// Name implements faultsim.Kit.
func (Kit) Name() string { return Name }

// Story implements faultsim.Storyteller: the store's lane left of the
// workers', the vendor's right of them, and a coin for each payment the
// vendor created; its events listed in words cite their rules, as its
// trace's words do not.
func (Kit) Story() gradewire.Story {
	return gradewire.Story{Before: []string{laneStore}, After: []string{laneVendor}, EffectBy: "The vendor created", Effect: "payment", CiteRules: true}
}

// The lanes of the world's fakes in a run's sequence diagram.
const (
	laneStore  = "store"
	laneVendor = "vendor"
)

// Harness implements faultsim.Kit.
func (Kit) Harness() faultsim.Harness { return faultsim.Harness{Path: HarnessPath, Symbols: Symbols} }

// Entry implements faultsim.Kit.
func (Kit) Entry() faultsim.EntrySpec {
	return faultsim.EntrySpec{
		Name:    EntryName,
		Params:  []string{"context.Context", HarnessPath + ".Store", HarnessPath + ".Vendor", "string"},
		Results: []string{HarnessPath + ".Status", "error"},
		Want:    "func CreatePayment(ctx context.Context, store createapi.Store, vendor createapi.Vendor, operationID string) (createapi.Status, error)",
	}
}

// Invariants implements faultsim.Kit.
func (Kit) Invariants() []faultsim.Invariant { return catalogue }

// ParseScenarios implements faultsim.Kit.
func (Kit) ParseScenarios(file string, data []byte) ([]faultsim.Scenario, error) {
	list, err := ParseScenarios(file, data)
	if err != nil {
		return nil, err
	}
	return Scenarios(list), nil
}

// NewWorld implements faultsim.Kit.
func (Kit) NewWorld(sc faultsim.Scenario, r *faultsim.Run) (faultsim.World, error) {
	s, ok := sc.(*Scenario)
	if !ok {
		return nil, fmt.Errorf("createclient: scenario %T is not this kit's", sc)
	}
	return newWorld(s, r), nil
}

// Scenarios returns the parsed scenarios as the engine takes them.
func Scenarios(list []*Scenario) []faultsim.Scenario {
	out := make([]faultsim.Scenario, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
