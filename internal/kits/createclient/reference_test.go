package createclient_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	reference "github.com/faultline-dev/faultline/internal/kits/createclient/solutions/reference"
)

// TestReferencePassesEverySeed: the reference passes every scenario over
// 200 schedules (and every crash point of the crash scenarios): a
// scenario no correct client could pass would show here.
func TestReferencePassesEverySeed(t *testing.T) {
	rep := gradeNative(t, reference.CreatePayment, faultsim.Options{Seeds: 200})
	for _, sc := range rep.Scenarios {
		if sc.Status != faultsim.StatusPass {
			b, _ := json.MarshalIndent(sc, "", "  ")
			t.Errorf("scenario %s failed: %s", sc.Name, b)
		}
	}
}

// TestReferencePassesInterpreted grades the reference as submissions are
// graded, on a sample of seeds; CREATECLIENT_SWEEP=1 runs all 200.
func TestReferencePassesInterpreted(t *testing.T) {
	seeds := 10
	if raceEnabled {
		seeds = 3
	}
	if os.Getenv("CREATECLIENT_SWEEP") != "" {
		seeds = 200
	}
	rep := gradeSource(t, "solutions/reference/client.go", faultsim.Options{Seeds: seeds})
	if rep.Status != faultsim.StatusPass {
		b, _ := json.MarshalIndent(rep, "", "  ")
		t.Fatalf("reference interpreted: %s", b)
	}
}

func TestReferenceNativeEqualsInterpreted(t *testing.T) {
	differ(t, reference.CreatePayment, "solutions/reference/client.go", 5)
}
