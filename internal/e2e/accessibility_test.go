package e2e

import (
	"net/http"
	"testing"
)

// TestAccessibility runs axe-core on every page of the app, and on the
// problem and set pages in the states a candidate brings them to (hints
// shown, answer material revealed). A serious or critical violation fails.
func TestAccessibility(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))

	pages := []struct {
		name, path string
		status     int
	}{
		{"catalogue", "/", http.StatusOK},
		{"catalogue filtered by a tag", "/?topic=idempotency", http.StatusOK},
		{"catalogue filtered to nothing", "/?topic=no-such-topic", http.StatusOK},
		{"code problem", "/problems/async-refund", http.StatusOK},
		{"timed-answer problem", "/problems/idempotent-create-client", http.StatusOK},
		{"rapid-fire set", "/sets/applied-ai-rapid-fire", http.StatusOK},
		{"screen", "/screens/applied-ai-tech-screen", http.StatusOK},
		{"unknown problem (404)", "/problems/no-such-problem", http.StatusNotFound},
		{"unknown path (404)", "/no/such/page", http.StatusNotFound},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			if status := visit(t, ctx, p.path); status != p.status {
				t.Fatalf("GET %s: status %d, want %d", p.path, status, p.status)
			}
			checkAxe(t, ctx, p.path)
		})
	}

	t.Run("problem after revealing hints", func(t *testing.T) {
		visitOK(t, ctx, "/problems/async-refund")
		clickAndLoad(t, ctx, `form[action$="/hints"] button[type=submit]`)
		waitFor(t, ctx, "#part-1-hint-1")
		checkAxe(t, ctx, "/problems/async-refund with hint 1 of part 1 shown")
	})
	t.Run("problem after revealing the answer material", func(t *testing.T) {
		visitOK(t, ctx, "/problems/async-refund")
		clickAndLoad(t, ctx, `form[action$="/reveal"] button[type=submit]`)
		waitFor(t, ctx, "#answer-material")
		checkAxe(t, ctx, "/problems/async-refund with the answer material revealed")
	})
	t.Run("set after revealing a model answer", func(t *testing.T) {
		visitOK(t, ctx, "/sets/applied-ai-rapid-fire")
		clickAndLoad(t, ctx, `form[action$="/reveal"] button[type=submit]`)
		waitFor(t, ctx, ".answer-material")
		checkAxe(t, ctx, "/sets/applied-ai-rapid-fire with a model answer revealed")
	})
	t.Run("my practice", func(t *testing.T) {
		if status := visit(t, ctx, "/practice"); status != http.StatusOK {
			t.Skipf("/practice answers %d: the page is not built yet", status)
		}
		checkAxe(t, ctx, "/practice after using the problems and the set")
	})
	requireNoPageExceptions(t, ctx)
}
