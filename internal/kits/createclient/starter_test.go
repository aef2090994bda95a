package createclient_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
)

var update = flag.Bool("update", false, "rewrite the golden reports")

// starterTrips is what each pitfall of the starter must be caught doing,
// scenario by scenario: the property the problem page states and the
// starter breaks there.
var starterTrips = map[string][]string{
	// A fresh key per attempt: the resend is a second payment.
	"timeout-after-landing": {"no-duplicate", "one-key"},
	// Nothing is saved before sending.
	"connect-errors": {"plan-before-send"},
	// The slow first request lands, and so does the resend under its
	// new key.
	"key-in-flight": {"no-duplicate", "one-key"},
	// Retry-After ignored.
	"rate-limited": {"retry-after"},
	// A blind resend where nothing can recognise it.
	"timeout-no-key": {"no-blind-resend", "no-duplicate"},
	// Look-up-then-create against a lagging search.
	"search-lags": {"search-before-resend", "no-duplicate"},
	// Look-up-then-create with two workers and no claim.
	"two-workers-after-deploy": {"no-duplicate"},
	// A refusal after a timeout believed.
	"refusal-after-timeout": {"unknown-not-failed"},
	// A 5xx is ambiguous; each retry has a key of its own.
	"replayed-server-error": {"one-key"},
	// Failed when the attempts run out after ambiguous errors.
	"answers-lost": {"unknown-not-failed"},
	// A restart after the key's lifetime sends it again.
	"key-expired": {"no-duplicate"},
}

func TestStarterTripsItsPitfalls(t *testing.T) {
	rep := gradeSource(t, problemDir+"/starter/client.go", faultsim.Options{Seeds: 3})
	failed := rep.Failed()
	for sc, want := range starterTrips {
		for _, id := range want {
			if !slices.Contains(failed[sc], id) {
				t.Errorf("scenario %s: the starter should fail %s; it failed %v", sc, id, failed[sc])
			}
		}
	}
	golden(t, "testdata/golden/starter.json", rep)
}

func golden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the report (run with -update after checking the change)", path)
	}
}

// TestProblemReferenceIsTheCorpusReference keeps the reference the page
// links to and the one the tests compile the same file.
func TestProblemReferenceIsTheCorpusReference(t *testing.T) {
	a, err := os.ReadFile(problemDir + "/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("content/problems/idempotent-create-client-code/reference/client.go and solutions/reference/client.go differ")
	}
}
