package e2e

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

// TestHintsRevealOneAtATime reveals the hints of part 1 of the refund problem
// with the keyboard alone: a hint's text is nowhere in the page (not even
// hidden) until its button is pressed, and each press shows exactly one more,
// in place: no reload, focus on the next hint's button, the tab and the
// scroll position kept; axe-clean in both themes, at 1366x900 and on a
// 390 px phone.
func TestHintsRevealOneAtATime(t *testing.T) {
	t.Parallel()
	const slug = "async-refund"
	hints := partHints(t, slug, 1)
	if len(hints) < 2 {
		t.Fatalf("part 1 of %s has %d hints; the test needs at least 2", slug, len(hints))
	}
	a := startApp(t)
	// Each size in a browser of its own: a new visitor, no hint shown yet.
	for _, size := range []struct{ w, h int64 }{{1366, 900}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			ctx := newBrowser(t, a)
			setViewport(t, ctx, size.w, size.h)
			visitOK(t, ctx, "/problems/"+slug)
			// A mark on this document: a reload would take it away.
			evalJS[bool](t, ctx, `(window.faultlineSamePage = true)`)

			for shown := 0; shown < len(hints); shown++ {
				for i, h := range hints {
					id := fmt.Sprintf("#part-1-hint-%d", i+1)
					inPage := pageTextContains(t, ctx, h)
					switch {
					case i < shown && (!exists(t, ctx, id) || !inPage):
						t.Fatalf("after revealing %d hints: hint %d is missing (element %s present: %v, text %q in page: %v)",
							shown, i+1, id, exists(t, ctx, id), h, inPage)
					case i >= shown && (exists(t, ctx, id) || inPage):
						t.Fatalf("after revealing %d hints: hint %d is already in the page (element %s present: %v, text %q in page: %v)",
							shown, i+1, id, exists(t, ctx, id), h, inPage)
					}
				}
				// Part 1 is a tab of the workspace: reach the tab list by Tab, then
				// the part by arrow keys.
				openTabByKeyboard(t, ctx, "Part 1")
				label := fmt.Sprintf("Reveal hint %d of %d", shown+1, len(hints))
				tabUntil(t, ctx, `the button "`+label+`"`, 400, func(f focusedElement) bool {
					return f.Tag == "button" && f.Name == label
				})
				scrollBefore := evalJS[float64](t, ctx, `document.getElementById("ws-problem").scrollTop + window.scrollY`)
				pressKey(t, ctx, kb.Enter)
				waitFor(t, ctx, fmt.Sprintf("#part-1-hint-%d", shown+1))
				if exists(t, ctx, "#part-2-hint-1") {
					t.Fatalf("revealing a hint of part 1 also showed hint 1 of part 2")
				}
				// In place: the same document, focus on the next hint's button
				// (or, after the last, on the hint it showed), the page where it was.
				if !evalJS[bool](t, ctx, `window.faultlineSamePage === true`) {
					t.Fatalf("revealing hint %d reloaded the page", shown+1)
				}
				f := focused(t, ctx)
				if shown+1 < len(hints) {
					if next := fmt.Sprintf("Reveal hint %d of %d", shown+2, len(hints)); f.Tag != "button" || f.Name != next {
						t.Errorf("after revealing hint %d, focus is on %s; want the button %q", shown+1, f, next)
					}
				} else if id := activeElementID(t, ctx); id != fmt.Sprintf("part-1-hint-%d", shown+1) {
					t.Errorf("after the last hint, focus is on %s (#%s); want the hint it showed", f, id)
				}
				scrollAfter := evalJS[float64](t, ctx, `document.getElementById("ws-problem").scrollTop + window.scrollY`)
				if scrollAfter < scrollBefore-1 {
					t.Errorf("revealing hint %d scrolled the page back from %.0f to %.0f", shown+1, scrollBefore, scrollAfter)
				}
				if !evalJS[bool](t, ctx, `document.getElementById("part-1-tab").getAttribute("aria-selected") === "true" && document.getElementById("part-1").checkVisibility()`) {
					t.Errorf("revealing hint %d left Part 1's tab", shown+1)
				}
			}
			for _, theme := range []string{"light", "dark"} {
				if theme == "dark" {
					emulateDark(t, ctx)
				} else {
					lightTheme(t, ctx)
				}
				checkAxe(t, ctx, "the workspace with every hint of part 1 shown in place, "+theme)
			}
			if got := text(t, ctx, "#part-1"); !strings.Contains(got, fmt.Sprintf("All %d hints shown", len(hints))) {
				t.Errorf("after the last hint, part 1 does not say that all hints are shown; it reads:\n%s", got)
			}
			requireNoPageExceptions(t, ctx)
		})
	}
}

// partHints returns, for each hint of a part of a shipped problem, a
// distinctive run of its text: the longest stretch between two tags.
func partHints(t *testing.T, slug string, part int) []string {
	t.Helper()
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatalf("load the shipped content: %v", err)
	}
	for _, p := range cat.Problems {
		if p.Slug != slug {
			continue
		}
		if part > len(p.Parts) {
			t.Fatalf("%s has no part %d", slug, part)
		}
		var out []string
		for _, h := range p.Parts[part-1].Hints {
			out = append(out, longestTextRun(h.Text.HTML))
		}
		return out
	}
	t.Fatalf("no shipped problem %s", slug)
	return nil
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// longestTextRun is the longest text between two tags of rendered HTML,
// unescaped, with its whitespace collapsed.
func longestTextRun(h string) string {
	var best string
	for _, run := range htmlTag.Split(h, -1) {
		run = strings.Join(strings.Fields(html.UnescapeString(run)), " ")
		if len(run) > len(best) {
			best = run
		}
	}
	return best
}

// pageTextContains reports whether the document's text, hidden parts
// included, contains s (whitespace collapsed on both sides).
func pageTextContains(t *testing.T, ctx context.Context, s string) bool {
	t.Helper()
	return evalJS[bool](t, ctx, fmt.Sprintf(
		`document.documentElement.textContent.replace(/\s+/g, " ").includes(%s)`, jsString(s)))
}

// TestHintAndRevealWithoutJavaScript: with scripts off, the hint and reveal
// forms of the refund problem still work as plain forms: a press posts,
// the page comes back with one more hint, then with the answer material;
// and a written answer's form stores the answer.
// At 1366x900 and 390x844, axe-clean in both themes.
func TestHintAndRevealWithoutJavaScript(t *testing.T) {
	t.Parallel()
	const slug = "async-refund"
	hints := partHints(t, slug, 1)
	if len(hints) < 2 {
		t.Fatalf("part 1 of %s has %d hints; the test needs at least 2", slug, len(hints))
	}
	a := startApp(t)
	for _, size := range weblightSizes {
		t.Run(size.name, func(t *testing.T) {
			ctx := newBrowser(t, a)
			setScripts(t, ctx, false)
			setViewport(t, ctx, size.width, size.height)
			visitOK(t, ctx, "/problems/"+slug)
			if pageTextContains(t, ctx, hints[0]) {
				t.Fatal("hint 1 is in the page before its button was pressed")
			}
			label := fmt.Sprintf("Reveal hint 1 of %d", len(hints))
			if !evalJS[bool](t, ctx, fmt.Sprintf(`(() => { const b = [...document.querySelectorAll("#part-1 form button")].find(b => b.textContent.trim() === %s);
				if (!b) return false; b.setAttribute("data-e2e-hint", ""); return true })()`, jsString(label))) {
				t.Fatalf("no button %q in part 1 without JavaScript", label)
			}
			clickAndLoad(t, ctx, "[data-e2e-hint]")
			if !pageTextContains(t, ctx, hints[0]) || pageTextContains(t, ctx, hints[1]) {
				t.Errorf("after pressing %q without JavaScript: hint 1 shown %v, hint 2 shown %v; want hint 1 alone",
					label, pageTextContains(t, ctx, hints[0]), pageTextContains(t, ctx, hints[1]))
			}
			if !exists(t, ctx, "#part-1-hint-1") {
				t.Error("the page after the hint's post has no #part-1-hint-1")
			}
			noSidewaysScroll(t, ctx, "the problem with hint 1 shown without JavaScript at "+size.name)

			clickAndLoad(t, ctx, `form[action$="/reveal"] button[type=submit]`)
			waitFor(t, ctx, "#answer-material")
			noSidewaysScroll(t, ctx, "the problem with its answer revealed without JavaScript at "+size.name)
			// axe needs scripts: allowed now, the page's own have not run.
			setScripts(t, ctx, true)
			checkAxeBothThemes(t, ctx, "the problem after a hint and a reveal without JavaScript at "+size.name)

			// An answer's form posts as a plain form too; the page comes
			// back with the answer stored.
			setScripts(t, ctx, false)
			visitOK(t, ctx, timedProblem)
			evalJS[bool](t, ctx, `(document.getElementById("answer-text").value = "Retry with the same key.", true)`)
			clickAndLoad(t, ctx, "#answer-text-box [data-timed-box] button[type=submit], #answer-text-box button[type=submit]")
			waitFor(t, ctx, "#answer-text-box .submitted-answer")
			if got := text(t, ctx, "#answer-text-box .submitted-answer"); got != "Retry with the same key." {
				t.Errorf("without JavaScript the stored answer reads %q", got)
			}
			noSidewaysScroll(t, ctx, timedProblem+" after an answer without JavaScript at "+size.name)
			setScripts(t, ctx, true)
			checkAxeBothThemes(t, ctx, timedProblem+" after an answer without JavaScript at "+size.name)
		})
	}
}

// setScripts turns the page's scripts on or off for the tab's next loads
// (evalJS still works: it is the test's, not the page's).
func setScripts(t *testing.T, ctx context.Context, on bool) {
	t.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !on}); err != nil {
		t.Fatalf("e2e: turn scripts on=%v: %v", on, err)
	}
}
