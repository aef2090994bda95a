package e2e

import (
	"fmt"
	"testing"
)

// TestRevealedAnswerInParts: the refund problem's answer material, revealed
// in place, reads in parts: what a strong answer covers first, the long
// model answer folded under its heading; opened, nothing in it but code
// blocks (which scroll in themselves) is wider than the problem's pane.
// axe-clean in both themes, at 1366x900 and on a 390 px phone.
func TestRevealedAnswerInParts(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	for _, size := range []struct{ w, h int64 }{{1366, 900}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			ctx := newBrowser(t, a)
			setViewport(t, ctx, size.w, size.h)
			visitOK(t, ctx, "/problems/async-refund")
			openTab(t, ctx, "ws-answer-tab")
			clickInPlace(t, ctx, `form[action$="/reveal"] button[type=submit]`)
			waitFor(t, ctx, "#answer-material")
			if evalJS[bool](t, ctx, `document.querySelector("#answer-material .model-answer details").open`) {
				t.Error("the model answer is open on arrival; want it folded")
			}
			if !evalJS[bool](t, ctx, `(() => { const s = document.getElementById("strong-h"), m = document.getElementById("model-h");
				return !!s && !!m && (s.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING) > 0 })()`) {
				t.Error("what a strong answer covers does not come before the model answer")
			}
			folded := evalJS[float64](t, ctx, `document.getElementById("answer-material").getBoundingClientRect().height`)
			evalJS[bool](t, ctx, `(document.querySelector("#answer-material .model-answer details").open = true, true)`)
			opened := evalJS[float64](t, ctx, `document.getElementById("answer-material").getBoundingClientRect().height`)
			t.Logf("the answer material: %.0f px folded, %.0f px with the model answer open", folded, opened)
			if folded > 4000 {
				t.Errorf("the folded answer material is %.0f px tall; want the long parts folded (at most 4,000 px)", folded)
			}
			wide := evalJS[[]string](t, ctx, `(() => { const m = document.getElementById("answer-material"), right = m.getBoundingClientRect().right;
				return [...m.querySelectorAll("*")].filter(e => !e.closest("pre") && e.getBoundingClientRect().right > right + 1)
					.slice(0, 5).map(e => e.tagName + " " + Math.round(e.getBoundingClientRect().right - right) + " px") })()`)
			if len(wide) > 0 {
				t.Errorf("the opened model answer overflows the pane: %q", wide)
			}
			for _, theme := range []string{"light", "dark"} {
				if theme == "dark" {
					emulateDark(t, ctx)
				} else {
					lightTheme(t, ctx)
				}
				checkAxe(t, ctx, "the answer material with the model answer open, "+theme)
			}
			requireNoPageExceptions(t, ctx)
		})
	}
}
