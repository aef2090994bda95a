package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// keyboardPages are the pages whose every control must be reachable by Tab.
var keyboardPages = []string{
	"/",
	"/problems/async-refund",
	"/problems/idempotent-create-client",
	"/sets/applied-ai-rapid-fire",
	"/screens/applied-ai-tech-screen",
	"/practice",
}

// TestSkipLinkIsFirstTabStop: on every page the first Tab lands on "Skip to
// content", which shows a focus ring, and Enter moves focus to main, so the
// next Tab continues inside the page's own content.
func TestSkipLinkIsFirstTabStop(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	for _, path := range keyboardPages {
		t.Run(path, func(t *testing.T) {
			visitOK(t, ctx, path)
			pressTab(t, ctx, 1)
			f := focused(t, ctx)
			href := evalJS[string](t, ctx, `document.activeElement.getAttribute("href") || ""`)
			if f.Tag != "a" || href != "#main" {
				t.Fatalf("the first Tab stop is %v (href %q), want the skip link to #main", f, href)
			}
			if !f.FocusVisible || !f.indicated() {
				t.Errorf("the focused skip link shows no focus ring: outline %q, box-shadow %q", f.Outline, f.BoxShadow)
			}
			if visible := evalJS[bool](t, ctx, `(() => { const r = document.activeElement.getBoundingClientRect();
				return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth })()`); !visible {
				t.Errorf("the focused skip link is not on screen")
			}
			pressKey(t, ctx, kb.Enter)
			waitUntil(t, ctx, "focus on main after Enter on the skip link", `document.activeElement && document.activeElement.id === "main"`)
			pressTab(t, ctx, 1)
			if inMain := evalJS[bool](t, ctx, `!!document.activeElement.closest("main")`); !inMain {
				t.Errorf("after the skip link, Tab went to %v, outside main", focused(t, ctx))
			}
		})
	}
	requireNoPageExceptions(t, ctx)
}

// tabStop is one place Tab can land, as the page describes it.
type tabStop struct {
	Key   string `json:"key"`   // one per stop; a radio group or a code editor is one stop
	Label string `json:"label"` // for messages
}

// markTabStops tags every element that should be a Tab stop with
// data-e2e-stop and returns the stops: visible, enabled, focusable, not
// inert, not taken out of the order by tabindex=-1.
const markTabStops = `(() => {
	const sel = 'a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable=""], [contenteditable="true"]';
	const stops = [];
	const seen = new Set();
	document.querySelectorAll(sel).forEach((el, i) => {
		if (el.disabled || el.type === "hidden" || el.tabIndex < 0 || el.closest("[inert]")) return;
		if (!el.checkVisibility({visibilityProperty: true, opacityProperty: false})) return;
		let key = "stop-" + i;
		const editor = el.closest(".cm-editor");
		if (editor) key = "editor";
		else if (el.type === "radio") key = "radio-" + (el.form ? [...document.forms].indexOf(el.form) : "x") + "-" + el.name;
		el.dataset.e2eStop = key;
		if (seen.has(key)) return;
		seen.add(key);
		const name = (el.getAttribute("aria-label") || el.innerText || el.value || el.getAttribute("href") || "").trim().replace(/\s+/g, " ").slice(0, 50);
		stops.push({key, label: "<" + el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "> " + JSON.stringify(name)});
	});
	return stops;
})()`

// currentStop describes the focused element: its stop key, and whether a
// focus ring shows (for a code editor, on the editor's frame).
const currentStop = `(() => {
	const el = document.activeElement;
	if (!el || el === document.body) return {key: "", tag: "body"};
	const editor = el.closest(".cm-editor");
	const ring = getComputedStyle(editor || el);
	const name = (el.getAttribute("aria-label") || el.innerText || el.value || el.getAttribute("href") || "").trim().replace(/\s+/g, " ").slice(0, 50);
	return {key: editor ? "editor" : (el.dataset.e2eStop || ""), tag: el.tagName.toLowerCase(), id: el.id, name,
		focusVisible: el.matches(":focus-visible") || (editor !== null && editor.matches(".cm-focused")),
		outline: ring.outlineStyle === "none" ? "none" : ring.outlineColor + " " + ring.outlineStyle + " " + ring.outlineWidth,
		boxShadow: ring.boxShadow};
})()`

type focusedStop struct {
	focusedElement
	Key string `json:"key"`
}

// TestEveryControlReachableByTab walks each page with Tab from the top to
// the end and checks that every visible control was focused on the way,
// each with a visible focus ring. In a code editor, where Tab indents, it
// leaves the way the editor's help says: Escape, then Tab.
func TestEveryControlReachableByTab(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a, withTimeout(2*defaultTestTimeout))
	for _, path := range keyboardPages {
		t.Run(path, func(t *testing.T) {
			visitOK(t, ctx, path)
			stops := evalJS[[]tabStop](t, ctx, markTabStops)
			if len(stops) == 0 {
				t.Fatalf("found no controls on %s", path)
			}
			reached := walkTabOrder(t, ctx, len(stops)*2+20)
			var missed []string
			for _, s := range stops {
				if !reached[s.Key] {
					missed = append(missed, s.Label)
				}
			}
			if len(missed) > 0 {
				t.Errorf("%d of %d controls on %s are never reached by Tab:\n  %s", len(missed), len(stops), path, strings.Join(missed, "\n  "))
			}
			t.Logf("%s: %d Tab stops, all reached by keyboard", path, len(stops))
		})
	}
	requireNoPageExceptions(t, ctx)
}

// walkTabOrder moves focus from the top of the page with nextTabStop (Tab,
// or Escape then Tab in a code editor) until focus leaves the page or comes
// back to where it started, checks each stop's focus ring and returns the
// stops it reached.
func walkTabOrder(t *testing.T, ctx context.Context, limit int) map[string]bool {
	t.Helper()
	reached := map[string]bool{}
	var noRing []string
	first, previous := "", ""
	for range limit {
		nextTabStop(t, ctx)
		f := evalJS[focusedStop](t, ctx, currentStop)
		if f.Tag == "body" || f.Tag == "html" {
			if len(reached) > 0 {
				break // past the last control
			}
			continue
		}
		if f.Key == first && first != "" {
			break // wrapped around
		}
		if f.Key == "editor" && previous == "editor" {
			t.Fatalf("Escape then Tab did not move focus out of the code editor")
		}
		if f.Key == "editor" {
			// CodeMirror draws its ring (class cm-focused) in its next
			// update, a moment after focus arrives.
			_, _ = chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector(".cm-editor.cm-focused")`,
				chromedp.WithPollingTimeout(2*time.Second)))
			f = evalJS[focusedStop](t, ctx, currentStop)
		}
		if first == "" {
			first = f.Key
		}
		if f.Key != "" && !reached[f.Key] && (!f.FocusVisible || !f.indicated()) {
			noRing = append(noRing, fmt.Sprintf("%v: outline %q, box-shadow %q, :focus-visible %v", f.focusedElement, f.Outline, f.BoxShadow, f.FocusVisible))
		}
		reached[f.Key] = true
		previous = f.Key
	}
	if len(noRing) > 0 {
		t.Errorf("%d controls show no focus ring when reached by Tab:\n  %s", len(noRing), strings.Join(noRing, "\n  "))
	}
	return reached
}
