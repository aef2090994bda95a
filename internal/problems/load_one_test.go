package problems

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// TestLoadProblemIsLoadsProblem checks LoadProblem gives the problem Load
// gives, whatever the rest of the content holds, and says when there is
// no such problem or it is invalid.
func TestLoadProblemIsLoadsProblem(t *testing.T) {
	whole := mustLoad(t, goodFixture())
	want, _ := whole.Problem("refund-demo")
	brokenSet := fixtureWith(map[string]*fstest.MapFile{"sets/quick.md": {Data: []byte("---\nslug: quick\n---\n")}})
	for name, fsys := range map[string]fstest.MapFS{"good content": goodFixture(), "another file invalid": brokenSet} {
		t.Run(name, func(t *testing.T) {
			got, found, err := LoadProblem(fsys, Options{}, "refund-demo")
			if err != nil || !found {
				t.Fatalf("found %v, err %v", found, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("LoadProblem's problem differs from Load's:\n got %+v\nwant %+v", got, want)
			}
		})
	}
	for _, slug := range []string{"nope", "quick", "../problems/refund-demo", "Refund-Demo", ""} {
		if p, found, err := LoadProblem(goodFixture(), Options{}, slug); p != nil || found || err != nil {
			t.Errorf("slug %q: %v, found %v, err %v; want no such problem", slug, p, found, err)
		}
	}

	broken := fixtureWith(map[string]*fstest.MapFile{
		"problems/refund-demo/problem.md": {Data: []byte(strings.Replace(goodProblem, "slug: refund-demo", "slug: other", 1))},
	})
	_, found, err := LoadProblem(broken, Options{}, "refund-demo")
	var ce *ContentError
	if !found || !errors.As(err, &ce) {
		t.Fatalf("a problem whose slug is not its folder's: found %v, err %v; want a *ContentError", found, err)
	}
	var got []string
	for _, d := range ce.Diagnostics {
		got = append(got, d.String())
	}
	wantDiags := []string{`problems/refund-demo/problem.md:2: slug "other" does not match the folder name "refund-demo": they must be the same`}
	if !slices.Equal(got, wantDiags) {
		t.Errorf("diagnostics:\n got %q\nwant %q", got, wantDiags)
	}
}

// TestLoadCodeIsLoadProblemsCode checks LoadCode gives the Code LoadProblem
// gives for valid content, but for the scenario lists, which ScenarioNames
// reads as LoadProblem does, without calling the kit's scenario check, and
// says when there is no such problem, when it has no code, and when its
// front matter or slug is wrong.
func TestLoadCodeIsLoadProblemsCode(t *testing.T) {
	scenarios := "kit: refund\ncheck: [lost]\nscenarios:\n  - name: slow\n  - name: lost\n"
	withScenarios := fixtureWith(map[string]*fstest.MapFile{"problems/refund-demo/scenarios.yaml": {Data: []byte(scenarios)}})
	checked := 0
	kits := []Kit{{Name: "refund", Scenarios: true, CheckScenarios: func(file string, data []byte) []Diagnostic { checked++; return nil }}}
	want, _, err := LoadProblem(withScenarios, Options{Kits: kits}, "refund-demo")
	if err != nil || want.Code == nil || len(want.Code.ScenarioNames) != 2 || checked != 1 {
		t.Fatalf("LoadProblem: %+v, %v, %d checks", want, err, checked)
	}
	got, found, err := LoadCode(withScenarios, Options{Kits: kits}, "refund-demo")
	if err != nil || !found {
		t.Fatalf("found %v, err %v", found, err)
	}
	if names := ScenarioNames(got.Scenarios); !reflect.DeepEqual(names, want.Code.ScenarioNames) {
		t.Errorf("ScenarioNames of LoadCode's scenarios: %q, LoadProblem's %q", names, want.Code.ScenarioNames)
	}
	lists := *want.Code
	lists.ScenarioNames, lists.CheckScenarios = nil, nil
	if !reflect.DeepEqual(got, &lists) {
		t.Errorf("LoadCode's code differs from LoadProblem's but for the scenario lists:\n got %+v\nwant %+v", got, &lists)
	}
	if checked != 1 {
		t.Errorf("LoadCode ran the kit's scenario check")
	}

	for _, slug := range []string{"nope", "quick", "../problems/refund-demo", "Refund-Demo", ""} {
		if code, found, err := LoadCode(goodFixture(), Options{}, slug); code != nil || found || err != nil {
			t.Errorf("slug %q: %v, found %v, err %v; want no such problem", slug, code, found, err)
		}
	}
	noCode := fixtureWith(map[string]*fstest.MapFile{"problems/refund-demo/problem.md": {Data: []byte(strings.Replace(goodProblem,
		"code:\n  language: go\n  starter: starter/refund.go\n  reference: reference/refund.go\n  grader: refund\n", "", 1))}})
	if code, found, err := LoadCode(noCode, Options{}, "refund-demo"); code != nil || !found || err != nil {
		t.Errorf("a problem without code: %v, found %v, err %v; want found, no code", code, found, err)
	}

	for name, tc := range map[string]struct {
		problem string
		want    string
	}{
		"slug not the folder's": {strings.Replace(goodProblem, "slug: refund-demo", "slug: other", 1),
			`problems/refund-demo/problem.md:2: slug "other" does not match the folder name "refund-demo": they must be the same`},
		"unknown kit": {strings.Replace(goodProblem, "grader: refund", "kit: nokit", 1),
			`problems/refund-demo/problem.md:17: unknown code.kit "nokit": the kits are createclient, refund`},
		"front matter not closed": {strings.Replace(goodProblem, "---\nThe function", "The function", 1),
			`problems/refund-demo/problem.md:1: front matter is not closed: add a --- line after the YAML`},
	} {
		t.Run(name, func(t *testing.T) {
			fsys := fixtureWith(map[string]*fstest.MapFile{"problems/refund-demo/problem.md": {Data: []byte(tc.problem)}})
			code, found, err := LoadCode(fsys, Options{}, "refund-demo")
			var ce *ContentError
			if code != nil || !found || !errors.As(err, &ce) {
				t.Fatalf("code %v, found %v, err %v; want a *ContentError", code, found, err)
			}
			if len(ce.Diagnostics) != 1 || ce.Diagnostics[0].String() != tc.want {
				t.Errorf("diagnostics %q, want [%q]", ce.Diagnostics, tc.want)
			}
		})
	}
}
