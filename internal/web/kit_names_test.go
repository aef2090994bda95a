package web

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoKitNames keeps the kits out of the web app, as TestNoFamilyNames
// keeps them out of the engine: a report is drawn from what the kit says
// of itself (its Story, its events' steps), never from a kit's name or
// its world's words. Tests may name kits; the code the server runs, its
// templates and what templ generates from them may not.
func TestNoKitNames(t *testing.T) {
	banned := regexp.MustCompile(`(?i)refund|createclient|create-client|create_client|refundkit|vendor|provider|payment|stripe|idempoten`)
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".templ")) && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil || len(files) < 50 {
		t.Fatalf("found %d files: %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := banned.FindString(line); m != "" {
				t.Errorf("%s:%d names %q: a kit's word in the web app", f, i+1, m)
			}
		}
	}
}
