package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	_ "modernc.org/sqlite" // to bring the answered item's review date forward
)

// TestReviewDueItemOpensTheBox follows a due item of the review queue by
// keyboard, at a laptop's size and a phone's: its link lands on the
// question's timed box with the text focused, the last answer and the model
// answer folded away, ready to answer again; answering again shows them.
// Without JavaScript the link still lands on the box's text, focused.
// axe-clean in both themes.
func TestReviewDueItemOpensTheBox(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	ctx := newBrowser(t, a)
	const (
		setPath = "/sets/applied-ai-rapid-fire"
		field   = "answer-what-is-idempotency-and-why-do-we-need-idempotent-operations"
		box     = "#" + field + "-box"
	)
	visitOK(t, ctx, setPath)
	waitFor(t, ctx, box+" [data-timer-clock]")
	focusAndType(t, ctx, "#"+field, "Doing it twice leaves the same state as doing it once.")
	waitBoxState(t, ctx, box, "running")
	evalJS[bool](t, ctx, fmt.Sprintf(`(() => { document.querySelector(%s).click(); return true })()`, jsString(box+" form[data-timed-form] button[type=submit]")))
	waitFor(t, ctx, box+" form[data-self-assessment]")

	// A day passes: the answer is due.
	db, err := sql.Open("sqlite", "file:"+a.DB+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if res, err := db.Exec(`UPDATE review_items SET due_at = ?`, time.Now().Add(-time.Hour).UnixMilli()); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("%d review items; want the one answer", n)
	}

	for _, size := range []struct{ w, h int64 }{{1366, 900}, {390, 844}} {
		label := fmt.Sprintf("%dx%d", size.w, size.h)
		setViewport(t, ctx, size.w, size.h)
		lightTheme(t, ctx)
		visitOK(t, ctx, "/review")
		link := "[data-review-due] [data-review-item] a"
		waitFor(t, ctx, link)
		href := evalJS[string](t, ctx, fmt.Sprintf(`document.querySelector(%s).getAttribute("href")`, jsString(link)))
		if want := setPath + "?again=what-is-idempotency-and-why-do-we-need-idempotent-operations#" + field; href != want {
			t.Fatalf("%s: the due item links to %q; want %q", label, href, want)
		}
		tabUntil(t, ctx, "the due item's link", 40, func(f focusedElement) bool { return f.Tag == "a" && strings.HasPrefix(f.Name, "Applied AI rapid-fire") })
		loadAfter(t, ctx, label+": Enter on the due item", chromedp.KeyEvent(kb.Enter))
		waitFor(t, ctx, box+"[data-again]")
		waitUntil(t, ctx, "the box's text focused", fmt.Sprintf(`document.activeElement && document.activeElement.id === %s`, jsString(field)))
		checkLanded(t, ctx, label, box, field)
		if !evalJS[bool](t, ctx, fmt.Sprintf(`(() => { const r = document.getElementById(%s).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight })()`, jsString(field))) {
			t.Errorf("%s: the focused text is not in view", label)
		}
		for _, theme := range []string{"light", "dark"} {
			if theme == "dark" {
				emulateDark(t, ctx)
			}
			checkAxe(t, ctx, fmt.Sprintf("%s opened to answer again, %s, %s", setPath, label, theme))
		}
	}

	// Answering again, from the keyboard: the box now sets the new answer
	// beside the model answer, unfolded, and the page's address has lost
	// ?again= (a reload keeps it so).
	typeKeys(t, ctx, " Retries carry one key, so the provider replays the first result.")
	waitBoxState(t, ctx, box, "running")
	tabUntil(t, ctx, "the submit button", 10, func(f focusedElement) bool { return f.Tag == "button" && f.Name == "Submit answer" })
	pressKey(t, ctx, kb.Enter)
	waitUntil(t, ctx, "the new answer beside the model answer", fmt.Sprintf(`(() => { const b = document.querySelector(%s);
		return !!b && !b.hasAttribute("data-again") && !b.querySelector("[data-answer-last]") &&
			b.querySelector("[data-answer-compare]").innerText.includes("replays the first result") })()`, jsString(box)))
	if got := evalJS[string](t, ctx, `location.search`); got != "" {
		t.Errorf("after answering again the address keeps %q", got)
	}
	requireNoPageExceptions(t, ctx)

	// Without JavaScript, as the same candidate (their cookies): the link
	// lands on the box, folded again for the next review.
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{a.URL}})
	if err != nil || len(cookies.Cookies) == 0 {
		t.Fatalf("the candidate's cookies: %v %v", cookies, err)
	}
	plain := newBrowser(t, a)
	var jar []*network.CookieParam
	for _, c := range cookies.Cookies {
		jar = append(jar, &network.CookieParam{Name: c.Name, Value: c.Value, URL: a.URL, HTTPOnly: c.HTTPOnly})
	}
	if _, err := chromedp.Call(plain, network.SetCookies, network.SetCookiesParams{Cookies: jar}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(plain, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	setViewport(t, plain, 390, 844)
	visitOK(t, plain, "/review")
	href := evalJS[string](t, plain, `document.querySelector("[data-review-item] a").getAttribute("href")`)
	visitOK(t, plain, href)
	checkLanded(t, plain, "without JavaScript", box, field)
	if id := activeElementID(t, plain); id != field {
		t.Errorf("without JavaScript the link focused %q; want the box's text %q", id, field)
	}
	if !evalJS[bool](t, plain, fmt.Sprintf(`(() => { const b = document.querySelector(%s).getBoundingClientRect(),
		f = document.getElementById(%s).getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight && f.top >= 0 && f.bottom <= innerHeight })()`, jsString(box), jsString(field))) {
		t.Errorf("without JavaScript the link did not land on the box")
	}
	// axe needs scripts: allowed now, the page's own have not run.
	if _, err := chromedp.Call(plain, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false}); err != nil {
		t.Fatal(err)
	}
	checkAxe(t, plain, setPath+" opened to answer again without JavaScript")
}

// checkLanded: the box is in its "answer again" state, the comparison
// folded shut above the open form.
func checkLanded(t *testing.T, ctx context.Context, label, box, field string) {
	t.Helper()
	got := evalJS[map[string]any](t, ctx, fmt.Sprintf(`(() => { const b = document.querySelector(%s);
		const last = b.querySelector("details[data-answer-last]");
		const label = b.querySelector("label[for=%s]");
		return {folded: !!last && !last.open, form: !!b.querySelector("form[data-timed-form]") && !b.querySelector("form[data-timed-form]").closest("details"),
			label: label ? label.textContent : "", hash: location.hash} })()`, jsString(box), field))
	if got["folded"] != true || got["form"] != true {
		t.Errorf("%s: the box is not ready to answer again: %v", label, got)
	}
	if !strings.Contains(fmt.Sprint(got["label"]), "again") {
		t.Errorf("%s: the box's form is labelled %q", label, got["label"])
	}
	if got["hash"] != "#"+field {
		t.Errorf("%s: landed at %q; want %q", label, got["hash"], "#"+field)
	}
}
