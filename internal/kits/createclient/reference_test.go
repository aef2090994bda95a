package createclient_test

import (
	"encoding/json"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	reference "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/reference"
)

func TestReferencePassesNative(t *testing.T) {
	rep := gradeNative(t, reference.CreatePayment, faultsim.Options{Seeds: 20})
	for _, sc := range rep.Scenarios {
		if sc.Status != faultsim.StatusPass {
			b, _ := json.MarshalIndent(sc, "", "  ")
			t.Errorf("scenario %s failed: %s", sc.Name, b)
		}
	}
}

func TestReferencePassesInterpreted(t *testing.T) {
	rep := gradeSource(t, "solutions/reference/client.go", faultsim.Options{Seeds: 3})
	if rep.Status != faultsim.StatusPass {
		b, _ := json.MarshalIndent(rep, "", "  ")
		t.Fatalf("reference interpreted: %s", b)
	}
}

func TestReferenceNativeEqualsInterpreted(t *testing.T) {
	differ(t, reference.CreatePayment, "solutions/reference/client.go", 5)
}
