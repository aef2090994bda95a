package e2e

import (
	"context"
	"testing"
)

// checkAxeBothThemes runs axe-core on the page as it is now with the
// system set to light, then to dark, and leaves it light: the issue 27
// items are checked in both themes at each size.
func checkAxeBothThemes(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	for _, theme := range []string{"light", "dark"} {
		if theme == "dark" {
			emulateDark(t, ctx)
		} else {
			lightTheme(t, ctx)
		}
		checkAxe(t, ctx, label+", "+theme)
	}
	lightTheme(t, ctx)
}

// noSidewaysScroll fails the test when the page scrolls sideways: nothing
// may be wider than a 390 px phone.
func noSidewaysScroll(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	if over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
		t.Errorf("%s scrolls %.0f px sideways", label, over)
	}
}
