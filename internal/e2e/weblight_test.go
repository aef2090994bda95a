package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The lighter page (issue 27): the editor's parts load when first used,
// the report's scenarios when opened, and a sequence diagram reads on a
// phone. Each at 1366x900 and at 390 px, in both themes, axe-clean.

var weblightSizes = []struct {
	name          string
	width, height int64
}{
	{"1366x900", 1366, 900},
	{"390x844", 390, 844},
}

// eachSizeAndTheme runs f in a fresh tab (a new candidate) at each size,
// light then dark, on one app.
func eachSizeAndTheme(t *testing.T, f func(t *testing.T, ctx context.Context, phone bool)) {
	a := startApp(t)
	for _, size := range weblightSizes {
		for _, dark := range []bool{false, true} {
			name := size.name + "/light"
			if dark {
				name = size.name + "/dark"
			}
			t.Run(name, func(t *testing.T) {
				ctx := newBrowser(t, a, withTimeout(3*defaultTestTimeout))
				setViewport(t, ctx, size.width, size.height)
				if dark {
					emulateDark(t, ctx)
				}
				f(t, ctx, size.width < 600)
				requireNoPageExceptions(t, ctx)
			})
		}
	}
}

// openCode loads the code problem and brings its editor into view: on a
// phone the code is a tab of its own, chosen once the tabs are set up (a
// reload shows the problem's last tab).
func openCode(t *testing.T, ctx context.Context, phone bool) {
	t.Helper()
	openCodeOf(t, ctx, codeProblem, phone)
}

// openCodeOf is openCode for the code problem at path.
func openCodeOf(t *testing.T, ctx context.Context, path string, phone bool) {
	t.Helper()
	visitOK(t, ctx, path)
	waitUntil(t, ctx, "the workspace script to hand out the editor",
		`document.getElementById("code-editor-textarea").faultlineEditor`)
	if phone {
		waitUntil(t, ctx, "the workspace's tabs", `document.querySelector('[role="tab"][aria-selected="true"]')`)
		evalJS[bool](t, ctx, `(() => { const tab = document.querySelector("[data-code-tab]");
			if (tab.getAttribute("aria-selected") !== "true") tab.click(); return true })()`)
	}
	waitFor(t, ctx, "[data-code-workspace] .cm-editor[data-editor]")
}

// partsLoaded lists the editor's parts loaded so far, by name.
const partsLoaded = `Object.keys(window.FaultlineEditor.parts).sort().join(",")`

// TestEditorPartsLoadOnFirstUse: the code problem's page loads the editor
// alone; bracket closing arrives with the first focus, search with its
// key, the diagnostics with the first ones to show, and each works once
// here. The shared editor's part never loads outside a room.
func TestEditorPartsLoadOnFirstUse(t *testing.T) {
	t.Parallel()
	eachSizeAndTheme(t, func(t *testing.T, ctx context.Context, phone bool) {
		openCode(t, ctx, phone)
		if got := evalJS[string](t, ctx, partsLoaded); got != "" {
			t.Errorf("parts loaded with the page: %q; want none", got)
		}
		if n := count(t, ctx, `script[src*="editor-lint"], script[src*="editor-search"], script[src*="editor-complete"], script[src*="editor-collab"]`); n != 0 {
			t.Errorf("the page links %d of the editor's parts; want none before they are used", n)
		}

		// Focus: bracket closing. A typed "(" gets its ")".
		evalJS[bool](t, ctx, `(document.getElementById("code-editor-textarea").faultlineEditor.focus(), true)`)
		waitUntil(t, ctx, "the complete part", `window.FaultlineEditor.parts.complete`)
		evalJS[bool](t, ctx, `(() => { const ed = document.getElementById("code-editor-textarea").faultlineEditor;
			ed.view.dispatch({selection: {anchor: ed.view.state.doc.length}}); ed.focus(); return true })()`)
		typeKeys(t, ctx, "\nvar x = f(")
		waitUntil(t, ctx, "the closing bracket", `document.getElementById("code-editor-textarea").faultlineEditor.getValue().endsWith("var x = f()")`)

		// Ctrl-F before the search part is here: it loads and opens the panel
		// with focus in its field, in both themes axe-clean.
		if exists(t, ctx, ".cm-search") {
			t.Fatal("a search panel is open before Ctrl-F")
		}
		pressKey(t, ctx, "f", chromedp.ModifierCtrl)
		waitFor(t, ctx, ".cm-editor .cm-search input[name=search]")
		waitUntil(t, ctx, "focus in the search field", `document.activeElement && document.activeElement.matches(".cm-search input[name=search]")`)
		typeKeys(t, ctx, "RefundMoney")
		pressKey(t, ctx, kb.Enter)
		waitUntil(t, ctx, "a match selected", `(() => { const v = document.getElementById("code-editor-textarea").faultlineEditor.view;
			const s = v.state.selection.main; return v.state.sliceDoc(s.from, s.to) === "RefundMoney" })()`)
		checkAxe(t, ctx, codeProblem+" with the search panel open")
		pressKey(t, ctx, kb.Escape)
		waitUntil(t, ctx, "the search panel to close", `!document.querySelector(".cm-search")`)

		// Diagnostics: a Check of code that does not compile brings the lint
		// part and marks the line.
		setCode(t, ctx, "package refund\n\nimport (\n\t\"context\"\n\n\t\"github.com/faultline-dev/faultline/internal/grader/refundkit\"\n)\n\n"+
			"func RefundMoney(ctx context.Context, requestID string) (refundkit.Outcome, error) {\n\treturn undefinedHelper(ctx, requestID)\n}\n")
		evalJS[bool](t, ctx, `(document.getElementById("code-editor-textarea").faultlineEditor.focus(), true)`)
		pressKey(t, ctx, kb.Enter, chromedp.ModifierCtrl)
		waitFor(t, ctx, ".cm-editor .cm-lintRange-error")
		waitFor(t, ctx, ".cm-editor .cm-lint-marker-error")
		if got := evalJS[string](t, ctx, partsLoaded); got != "complete,lint,search" {
			t.Errorf("parts loaded: %q; want complete,lint,search", got)
		}
		if exists(t, ctx, `script[src*="editor-collab"]`) {
			t.Error("the shared editor's part loaded on a solo page")
		}
		checkAxe(t, ctx, codeProblem+" with its parts loaded")
	})
}

// TestScenarioPartsLoadWhenOpened: after a Grade of the starter the page
// is under the 200 KB of HTML; a scenario whose part is left out
// loads it in place when opened (by the mouse, the keyboard or a link from
// "What broke"), keeping focus, and its link works as a page without a
// script.
func TestScenarioPartsLoadWhenOpened(t *testing.T) {
	t.Parallel()
	eachSizeAndTheme(t, func(t *testing.T, ctx context.Context, phone bool) {
		openCode(t, ctx, phone)
		gradeAndWait(t, ctx)
		openCode(t, ctx, phone) // the page as a reload after the grade serves it
		waitFor(t, ctx, "#grade-report section.grade-report")
		raw := evalJS[int](t, ctx, `fetch(location.pathname, {credentials: "same-origin"}).then(r => r.text()).then(t => t.length)`)
		t.Logf("the page after a failing grade: %d characters of HTML", raw)
		if raw > 200*1000 {
			t.Errorf("the page after a failing grade is %d characters of HTML; the budget is 200,000", raw)
		}
		if n := count(t, ctx, "#grade-report details.grade-scenario[data-scenario-src]"); n < 40 {
			t.Errorf("%d scenarios leave their part to be loaded; want all but the first failure", n)
		}

		// The keyboard: focus a closed failure's summary, press Enter.
		id := evalJS[string](t, ctx, `(() => { const d = document.querySelector("#grade-report .grade-scenario.grade-fail[data-scenario-src]");
			d.closest(".grade-passed-fold") && (d.closest(".grade-passed-fold").open = true);
			d.querySelector("summary").focus(); return d.id })()`)
		pressKey(t, ctx, kb.Enter)
		sel := "#" + id
		waitFor(t, ctx, sel+" .grade-minimal-steps li")
		openFullRun(t, ctx, sel)
		waitFor(t, ctx, sel+" figure.grade-sequence svg.seq")
		waitUntil(t, ctx, "the part's violations", `document.querySelector(`+jsString(sel+" .grade-violations li a[data-opens-details]")+`)`)
		if !evalJS[bool](t, ctx, `document.activeElement === document.querySelector(`+jsString(sel+" > summary")+`)`) {
			t.Errorf("focus after the part came is on %s; want the scenario's summary", focused(t, ctx))
		}
		if exists(t, ctx, sel+"[data-scenario-src], "+sel+" [data-scenario-link]") {
			t.Error("the scenario still offers its part after loading it")
		}
		checkAxe(t, ctx, codeProblem+" with a loaded scenario open")

		// A link from "What broke" to a scenario not loaded yet opens it and
		// loads it.
		target := evalJS[string](t, ctx, `(() => { const a = [...document.querySelectorAll("#grade-report .grade-broken-in a[data-opens-details]")]
			.find(a => { const d = document.getElementById(a.getAttribute("href").slice(1)); return d && d.hasAttribute("data-scenario-src") });
			a.closest("details").open = true; a.click(); return a.getAttribute("href") })()`)
		openFullRun(t, ctx, target)
		waitFor(t, ctx, target+" figure.grade-sequence svg.seq")

		// A passed scenario's run, not kept in the report (issue 25), is
		// replayed when opened (issue 27) and loads too.
		if !exists(t, ctx, "#grade-report .grade-scenario.grade-pass[data-scenario-src]") {
			t.Errorf("none of the %d passed scenarios offers its run to load (data-scenario-src); want each one's run on demand",
				count(t, ctx, "#grade-report .grade-scenario.grade-pass"))
		} else {
			passed := evalJS[string](t, ctx, `(() => { const d = document.querySelector("#grade-report .grade-scenario.grade-pass[data-scenario-src]");
				d.closest(".grade-passed-fold").open = true; d.open = true; return "#" + d.id })()`)
			waitFor(t, ctx, passed+" figure.grade-sequence svg.seq")
		}

		// Without a script, the link is a page of its own with the run drawn.
		href := evalJS[string](t, ctx, `document.querySelector("#grade-report [data-scenario-src] [data-scenario-link] a").getAttribute("href")`)
		visitOK(t, ctx, href)
		waitFor(t, ctx, "main h1")
		openFullRun(t, ctx, ".grade-scenario-alone")
		waitFor(t, ctx, ".grade-scenario-alone figure.grade-sequence svg.seq")
		if !exists(t, ctx, `main a[href*="/runs/"][href*="#scenario-"]`) {
			t.Error("a scenario's own page does not link back to the whole report")
		}
		checkAxe(t, ctx, href)
	})
}

// TestSequenceDiagramReadable: at 1366 every label of the first failure's
// diagram is whole and inside the picture; on a phone the picture keeps
// its 12 px words and scrolls inside its box (by keyboard too), not the
// page.
func TestSequenceDiagramReadable(t *testing.T) {
	t.Parallel()
	sequenceDiagramReadable(t, codeProblem)
}

// TestKitSequenceDiagramReadable: a create-client starter's failing grade
// draws its first failure in the kit's own lanes, as readable as the
// refund problem's, in both themes and at both sizes, axe-clean.
func TestKitSequenceDiagramReadable(t *testing.T) {
	t.Parallel()
	sequenceDiagramReadable(t, kitProblem)
}

// sequenceDiagramReadable grades the starter of the code problem at path
// and reads its first failure's diagram.
func sequenceDiagramReadable(t *testing.T, path string) {
	eachSizeAndTheme(t, func(t *testing.T, ctx context.Context, phone bool) {
		openCodeOf(t, ctx, path, phone)
		gradeAndWait(t, ctx)
		evalJS[bool](t, ctx, `(document.querySelector("#grade-report .grade-strip a").click(), true)`)
		openFullRun(t, ctx, "#grade-report .grade-scenario.grade-fail[open]")
		waitFor(t, ctx, "#grade-report .grade-scenario.grade-fail[open] .seq-scroll svg.seq")
		fig := "#grade-report .grade-scenario.grade-fail[open] figure.grade-sequence"

		// Labels whole, and inside the picture's width.
		clipped := evalJS[[]string](t, ctx, `(() => { const svg = document.querySelector(`+jsString(fig+" svg.seq")+`);
			const w = svg.viewBox.baseVal.width;
			return [...svg.querySelectorAll(".seq-label")].filter(l => l.textContent.endsWith("…") ||
				l.getStartPositionOfChar(0).x + l.getComputedTextLength() > w).map(l => l.textContent) })()`)
		if len(clipped) > 0 {
			t.Errorf("labels cut or past the picture's edge: %q", clipped)
		}
		// The 12 px words are drawn at 10 px at least, whatever the screen.
		px := evalJS[float64](t, ctx, `(() => { const l = document.querySelector(`+jsString(fig+" svg.seq .seq-label")+`);
			return l.getBoundingClientRect().height })()`)
		t.Logf("a label is drawn %.1f px tall", px)
		if px < 10 {
			t.Errorf("a label is drawn %.1f px tall; want 10 px or more", px)
		}
		over := evalJS[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`)
		if over > 0 {
			t.Errorf("the page scrolls %.0f px sideways with the diagram open", over)
		}
		box := fig + " .seq-scroll"
		wider := evalJS[bool](t, ctx, fmt.Sprintf(`(() => { const b = document.querySelector(%s); return b.scrollWidth > b.clientWidth + 1 })()`, jsString(box)))
		t.Logf("the diagram is %s px wide in a box of %s px", evalJS[string](t, ctx, fmt.Sprintf(`String(document.querySelector(%s).scrollWidth)`, jsString(box))),
			evalJS[string](t, ctx, fmt.Sprintf(`String(document.querySelector(%s).clientWidth)`, jsString(box))))
		if !phone && wider {
			t.Error("at 1366 px the diagram scrolls sideways in the results pane")
		}
		if phone {
			if !wider {
				t.Error("on a phone the diagram fits its box: it must have been shrunk")
			}
			// The keyboard scrolls it: the box takes focus, ArrowRight moves.
			evalJS[bool](t, ctx, `(document.querySelector(`+jsString(box)+`).focus(), true)`)
			if f := focused(t, ctx); !f.indicated() {
				t.Errorf("the diagram's box has focus with no visible indicator: %s", f)
			}
			for range 5 {
				pressKey(t, ctx, kb.ArrowRight)
			}
			waitUntil(t, ctx, "the diagram to scroll sideways", `document.querySelector(`+jsString(box)+`).scrollLeft > 0`)
		}
		lanes := evalJS[[]string](t, ctx, `[...document.querySelectorAll(`+jsString(fig+" svg.seq .seq-lane-name")+`)].map(l => l.textContent)`)
		rows := count(t, ctx, fig+" svg.seq .seq-row")
		t.Logf("lanes %q, %d rows", lanes, rows)
		if len(lanes) < 3 || rows < 3 {
			t.Errorf("the diagram has lanes %q and %d rows; want the kit's lanes around a worker's, and the run's steps", lanes, rows)
		}
		checkAxe(t, ctx, path+" with a sequence diagram open")
		if strings.Contains(text(t, ctx, fig+" figcaption"), "…") {
			t.Error("the diagram's caption is cut")
		}
	})
}
