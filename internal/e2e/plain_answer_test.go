package e2e

import "testing"

// TestPlainAnswerTickFormInPlace: a plain form's answer, submitted in place
// (no reload), brings the tick form and the styles it needs, which the
// page did not link before there was an answer to tick.
func TestPlainAnswerTickFormInPlace(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	const plain = "/problems/webhook-consumer"
	for _, size := range []struct {
		name          string
		width, height int64
	}{{"1366x900", 1366, 900}, {"390x844", 390, 844}} {
		ctx := newBrowser(t, a) // a new visitor: no answer yet
		setViewport(t, ctx, size.width, size.height)
		visitOK(t, ctx, plain)
		if exists(t, ctx, `head link[href*="review.css"]`) {
			t.Errorf("at %s the page links the tick form's styles before any answer", size.name)
		}
		waitFor(t, ctx, "#answer-text")
		evalJS[bool](t, ctx, `(document.getElementById("answer-text").value = "Dedupe on the event id in the same transaction as the effect.", true)`)
		evalJS[bool](t, ctx, `(document.getElementById("answer-text").form.requestSubmit(), true)`)
		waitFor(t, ctx, `form[action$="/assessment"]`)
		if !exists(t, ctx, `head link[href*="review.css"]`) || !exists(t, ctx, `head link[href*="timed-answer.css"]`) {
			t.Errorf("at %s the tick form came in place without its styles", size.name)
		}
		checkAxeBothThemes(t, ctx, plain+" with the tick form in place at "+size.name)
		requireNoPageExceptions(t, ctx)
	}
}
