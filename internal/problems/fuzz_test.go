package problems

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzLoad feeds arbitrary text to the loader as a problem, a set and a
// screen. Whatever the text, Load must not panic, must fail only with a
// *ContentError, and every diagnostic must point at a real line of a file.
func FuzzLoad(f *testing.F) {
	f.Add(goodProblem)
	f.Add(goodSet)
	f.Add(goodScreen)
	f.Add("---\nslug: x\n---\n## Part 1\n### Hints\n- a\n")
	f.Add("---\n---\n<div>\n- [x] **T**:\n1.\t`x`\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, file := range []string{problemPath, setPath, screenPath} {
			fsys := fixtureWith(map[string]*fstest.MapFile{file: {Data: []byte(text)}})
			_, err := Load(fsys)
			if err == nil {
				continue
			}
			var ce *ContentError
			if !errors.As(err, &ce) {
				t.Fatalf("%s: Load returned %T %v, want a *ContentError", file, err, err)
			}
			lines := strings.Count(strings.ReplaceAll(text, "\r\n", "\n"), "\n") + 1
			for _, d := range ce.Diagnostics {
				if d.File == "" || d.Message == "" || d.Line < 0 {
					t.Fatalf("%s: malformed diagnostic %+v", file, d)
				}
				if d.File == file && d.Line > lines+1 {
					t.Fatalf("%s: diagnostic past the end of a %d-line file: %s", file, lines, d)
				}
			}
		}
	})
}
