package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestContentErrorsBanner runs the server with -watch, breaks a content
// file as an author might and checks the banner every page then shows:
// visible, an alert naming the file and line, and axe-clean on a light and
// a dark system. Fixing the file takes it away without a restart.
func TestContentErrorsBanner(t *testing.T) {
	t.Parallel()
	a := startApp(t, withServeFlags("-watch"))
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))

	set := filepath.Join(a.Content, "sets", "applied-ai-rapid-fire.md")
	good, err := os.ReadFile(set)
	if err != nil {
		t.Fatal(err)
	}
	// A misspelt key on line 2, where lint will point.
	broken := strings.Replace(string(good), "---\n", "---\ntitel: Rapid fire\n", 1)
	if err := os.WriteFile(set, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	reloadUntil(t, ctx, "/", "the banner to show", true)
	waitFor(t, ctx, `header.site .content-errors[role="alert"]`)
	want := set + ":2"
	if got := text(t, ctx, ".content-errors li code"); got != want {
		t.Errorf("the banner's first error is at %q; want %q", got, want)
	}
	if got := text(t, ctx, ".content-errors"); !strings.Contains(got, `unknown key "titel"`) {
		t.Errorf("the banner reads %q; want lint's message about the key", got)
	}

	for _, path := range []string{"/", "/problems/async-refund", "/sets/applied-ai-rapid-fire"} {
		visitOK(t, ctx, path)
		waitFor(t, ctx, ".content-errors")
		lightTheme(t, ctx)
		checkAxe(t, ctx, path+" with the content errors banner, light")
		emulateDark(t, ctx)
		checkAxe(t, ctx, path+" with the content errors banner, dark")
		lightTheme(t, ctx)
	}

	if err := os.WriteFile(set, good, 0o644); err != nil {
		t.Fatal(err)
	}
	reloadUntil(t, ctx, "/", "the banner to go", false)
	requireNoPageExceptions(t, ctx)
}

// reloadUntil loads path until the banner is there (or gone), 20 s at
// most: the page is the server's answer, so only a reload can change it.
func reloadUntil(t *testing.T, ctx context.Context, path, what string, banner bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		visitOK(t, ctx, path)
		if exists(t, ctx, ".content-errors") == banner {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s on %s", what, path)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
