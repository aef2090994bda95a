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
