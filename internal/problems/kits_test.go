package problems

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// testKits stand for the kits the server wires: one with compiled-in
// scenarios, one whose scenarios file is checked by a fake schema that
// refuses any line holding "bogus".
func testKits() []Kit {
	return []Kit{
		{Name: "refund"},
		{Name: "createclient", Scenarios: true, CheckScenarios: func(file string, data []byte) []Diagnostic {
			var ds []Diagnostic
			for i, line := range strings.Split(string(data), "\n") {
				if strings.Contains(line, "bogus") {
					ds = append(ds, Diagnostic{File: file, Line: i + 1, Message: "unknown field bogus"})
				}
			}
			return ds
		}},
	}
}

// twoScenarios is a scenarios file of two scenarios, a and b (lines 1-5).
const twoScenarios = "scenarios:\n  - name: a\n    title: A\n  - name: b\n    title: B\n"

func TestCodeKit(t *testing.T) {
	const grader = "  grader: refund\n"
	tests := []struct {
		name     string
		code     string // replaces the fixture's "  grader: refund\n"
		files    map[string]string
		wantKit  string
		wantScen string
		// the scenario names and the check list read from the file
		wantNames, wantCheck []string
		want                 []string
	}{
		{name: "grader is the old spelling of kit", code: grader, wantKit: "refund"},
		{name: "kit", code: "  kit: refund\n", wantKit: "refund"},
		{name: "kit and grader agree", code: "  kit: refund\n  grader: refund\n", wantKit: "refund"},
		{name: "no kit", code: "", wantKit: ""},
		{
			name: "kit and grader disagree", code: "  kit: createclient\n  grader: refund\n",
			want: []string{`problems/refund-demo/problem.md:18: code.kit "createclient" and code.grader "refund" disagree: code.grader is the old name of code.kit, keep only kit`},
		},
		{
			name: "unknown kit", code: "  kit: refnud\n",
			want: []string{`problems/refund-demo/problem.md:17: unknown code.kit "refnud": the kits are createclient, refund`},
		},
		{
			name: "unknown grader", code: "  grader: nope\n",
			want: []string{`problems/refund-demo/problem.md:17: unknown code.grader "nope": the kits are createclient, refund`},
		},
		{
			name: "scenarios file read", code: "  kit: createclient\n",
			files:   map[string]string{"problems/refund-demo/scenarios.yaml": "scenarios: []\n"},
			wantKit: "createclient", wantScen: "problems/refund-demo/scenarios.yaml",
		},
		{
			name: "scenarios file named", code: "  kit: createclient\n  scenarios: grading/faults.yaml\n",
			files:   map[string]string{"problems/refund-demo/grading/faults.yaml": "scenarios: []\n"},
			wantKit: "createclient", wantScen: "problems/refund-demo/grading/faults.yaml",
		},
		{
			name: "scenarios file missing", code: "  kit: createclient\n",
			want: []string{"problems/refund-demo/problem.md:17: kit createclient grades against a scenarios file: problems/refund-demo/scenarios.yaml not found (name another with code.scenarios)"},
		},
		{
			name: "scenarios outside the folder", code: "  kit: createclient\n  scenarios: ../other/scenarios.yaml\n",
			want: []string{`problems/refund-demo/problem.md:18: code.scenarios "../other/scenarios.yaml" must be a path inside the problem folder problems/refund-demo/`},
		},
		{
			name: "scenarios for a kit that reads none", code: "  kit: refund\n  scenarios: scenarios.yaml\n",
			want: []string{"problems/refund-demo/problem.md:18: kit refund reads no scenarios file: remove code.scenarios"},
		},
		{
			name: "the kit's check names the scenario line", code: "  kit: createclient\n",
			files: map[string]string{"problems/refund-demo/scenarios.yaml": "scenarios:\n  - name: a\n    bogus: 1\n"},
			want:  []string{"problems/refund-demo/scenarios.yaml:3: unknown field bogus"},
		},
		{
			name: "the scenario names and the check list are read", code: "  kit: createclient\n",
			files:   map[string]string{"problems/refund-demo/scenarios.yaml": twoScenarios + "check: [b]\n"},
			wantKit: "createclient", wantScen: "problems/refund-demo/scenarios.yaml", wantNames: []string{"a", "b"}, wantCheck: []string{"b"},
		},
		{
			name: "no check list", code: "  kit: createclient\n",
			files:   map[string]string{"problems/refund-demo/scenarios.yaml": twoScenarios},
			wantKit: "createclient", wantScen: "problems/refund-demo/scenarios.yaml", wantNames: []string{"a", "b"},
		},
		{
			name: "a check entry that is not a scenario", code: "  kit: createclient\n",
			files: map[string]string{"problems/refund-demo/scenarios.yaml": twoScenarios + "check:\n  - a\n  - c\n  - a\n"},
			want: []string{`problems/refund-demo/scenarios.yaml:8: check names "c", which is not a scenario of this file`,
				`problems/refund-demo/scenarios.yaml:9: check names "a" twice`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := edit(t, problemPath, grader, tt.code)
			// Each case brings the scenarios file it needs.
			delete(fsys, "problems/refund-demo/scenarios.yaml")
			for name, data := range tt.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			cat, err := LoadWith(fsys, Options{Kits: testKits()})
			var got []string
			if diags, ok := err.(*ContentError); ok {
				for _, d := range diags.Diagnostics {
					got = append(got, d.String())
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if tt.want != nil {
				return
			}
			code := cat.Problems[0].Code
			if code.Kit != tt.wantKit || code.ScenariosPath != tt.wantScen {
				t.Errorf("kit %q scenarios %q, want %q %q", code.Kit, code.ScenariosPath, tt.wantKit, tt.wantScen)
			}
			if tt.wantScen != "" && code.Scenarios != tt.files[tt.wantScen] {
				t.Errorf("scenarios text %q", code.Scenarios)
			}
			if !slices.Equal(code.ScenarioNames, tt.wantNames) || !slices.Equal(code.CheckScenarios, tt.wantCheck) {
				t.Errorf("scenarios %q, check %q; want %q, %q", code.ScenarioNames, code.CheckScenarios, tt.wantNames, tt.wantCheck)
			}
		})
	}
}

func TestErrorDiagnostics(t *testing.T) {
	const f = "problems/p/scenarios.yaml"
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{name: "none", err: nil, want: nil},
		{name: "with line", err: errors.New(f + ":12: unknown field \"bogus\""), want: []string{f + ":12: unknown field \"bogus\""}},
		{name: "without line", err: errors.New(f + ": the file is empty"), want: []string{f + ": the file is empty"}},
		{name: "another file's", err: errors.New("other.go:3: x"), want: []string{f + ": other.go:3: x"}},
		{
			name: "joined",
			err:  errors.Join(errors.New(f+":2: a"), errors.New(f+":9: b: c")),
			want: []string{f + ":2: a", f + ":9: b: c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range ErrorDiagnostics(f, tt.err) {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestWatcherReloadsAScenariosFile checks that an edit of a kit problem's
// scenarios file is seen by -watch and checked with the kit's schema.
func TestWatcherReloadsAScenariosFile(t *testing.T) {
	dir := t.TempDir()
	fsys := edit(t, problemPath, "  grader: refund\n", "  kit: createclient\n")
	fsys["problems/refund-demo/scenarios.yaml"] = &fstest.MapFile{Data: []byte("scenarios:\n  - name: a\n")}
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	w := NewWatcher(dir, time.Millisecond)
	w.Options = Options{Kits: testKits()}
	if _, err := w.Load(); err != nil {
		t.Fatal(err)
	}
	var st watchState
	writeFile(t, filepath.Join(dir, "problems", "refund-demo", "scenarios.yaml"), "scenarios:\n  - name: a\n    bogus: 1\n")
	if first, second := w.poll(&st), w.poll(&st); first || !second {
		t.Fatalf("polls after the edit: %v, %v; want false then true", first, second)
	}
	_, err := w.Load()
	wantDiagnostic(t, err, "problems/refund-demo/scenarios.yaml", 3)
}
