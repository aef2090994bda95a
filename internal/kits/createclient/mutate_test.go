//go:build mutate

package createclient_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/mutation"
)

const survivorsFile = "testdata/mutation-survivors.txt"

// TestMutantsOfTheReference applies internal/mutation's operators to the
// reference and grades every mutant interpreted: a mutant that passes every
// scenario is a survivor, and each must be explained in survivorsFile (an
// equivalent change, or a gap the suite accepts). It grades a hundred-odd
// submissions (about a minute), so it is built only with -tags mutate,
// which also keeps this package's tests compiling while the mutation tool
// changes; -update rewrites the file's list, keeping the
// explanations already written:
//
//	go test -tags mutate -run TestMutantsOfTheReference ./internal/kits/createclient/
func TestMutantsOfTheReference(t *testing.T) {
	src, err := os.ReadFile("solutions/reference/client.go")
	if err != nil {
		t.Fatal(err)
	}
	mutants, err := mutation.Mutants(string(src), mutation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scenarios := loadScenarios(t)
	explained := readSurvivors(t)
	var survivors []string
	stillborn := 0
	for _, m := range mutants {
		rep, err := interpreted.GradeSource(context.Background(), createclient.Kit{}, scenarios, "client.go", m.Source, faultsimtest.Bubble(t), faultsim.Options{Seeds: 3})
		if err != nil {
			t.Fatal(err)
		}
		switch rep.Status {
		case faultsim.StatusError:
			stillborn++
		case faultsim.StatusPass:
			survivors = append(survivors, m.ID)
			if why := explained[m.ID]; why == "" || why == "UNEXPLAINED" {
				t.Errorf("survivor %s (line %d): %s -> %s", m.ID, m.Line, strings.TrimSpace(m.Before), strings.TrimSpace(m.After))
			}
		}
	}
	for id := range explained {
		if !slices.Contains(survivors, id) && !*update {
			t.Errorf("%s lists %s, which no longer survives: remove it (or run with -update)", survivorsFile, id)
		}
	}
	t.Logf("%d mutants: %d killed, %d survived, %d did not compile", len(mutants), len(mutants)-len(survivors)-stillborn, len(survivors), stillborn)
	if *update {
		writeSurvivors(t, survivors, explained)
	}
}

func readSurvivors(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(survivorsFile)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, why, _ := strings.Cut(line, " ")
		out[id] = strings.TrimSpace(why)
	}
	return out
}

func writeSurvivors(t *testing.T, ids []string, explained map[string]string) {
	t.Helper()
	sort.Strings(ids)
	var b strings.Builder
	b.WriteString("# Mutants of solutions/reference/client.go that pass every scenario, each with why\n")
	b.WriteString("# (go test -tags mutate -run TestMutantsOfTheReference ./internal/kits/createclient/)\n")
	for _, id := range ids {
		why := explained[id]
		if why == "" {
			why = "UNEXPLAINED"
		}
		fmt.Fprintf(&b, "%s %s\n", id, why)
	}
	if err := os.WriteFile(survivorsFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
