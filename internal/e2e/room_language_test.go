package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/pyenv"
)

// TestPythonRoom: a room made in Python ("Code in: Python" on the new-room
// form) opens the refund problem's Python starter in the shared editor in
// Python's mode on both sides, says so, and its Run grades the Python
// reference typed there to a passing report. axe is clean on the form and
// both pages.
func TestPythonRoom(t *testing.T) {
	t.Parallel()
	if _, why := pyenv.Available(); why != "" {
		t.Skip("Python cannot be graded on this machine: " + why)
	}
	a := startApp(t)
	iv := newBrowser(t, a, withTimeout(3*time.Minute))
	visitOK(t, iv, "/rooms/new")
	if got := text(t, iv, `label[for="room-lang"]`); got != "Code in" {
		t.Fatalf("the language select's label is %q", got)
	}
	checkAxe(t, iv, "the new-room page with the language select")
	evalJS[bool](t, iv, `(document.querySelector('input[value="problem:async-refund"]').checked = true, document.getElementById("room-lang").value = "python", true)`)
	clickAndLoad(t, iv, `form.room-new button[type="submit"]`)
	links := evalJS[[]string](t, iv, `[...document.querySelectorAll("input.room-link")].map(i => i.value)`)
	if len(links) != 2 {
		t.Fatalf("the new room's links: %q", links)
	}
	visit(t, iv, strings.TrimPrefix(links[0], a.URL))
	waitUntilReloaded(t, iv, `document.querySelector("#room[data-role=interviewer]")`)
	waitFor(t, iv, `#room[data-lang="python"] .cm-editor[data-editor="python"]`)
	waitUntil(t, iv, "the room's editor handle", `window.faultlineRoom && window.faultlineRoom.editor`)
	if got, want := evalJS[string](t, iv, `window.faultlineRoom.editor.getValue()`), contentFile(t, "problems/async-refund/starter/refund.py"); got != want {
		t.Fatalf("the Python room's editor holds:\n%s", shorten(got))
	}
	if got := text(t, iv, `label[for="room-code-textarea"]`); got != "Shared code (Python)" {
		t.Errorf("the code's label is %q", got)
	}
	checkAxe(t, iv, "the interviewer's page of a Python room")
	// The candidate's editor is in Python's mode too.
	cand := newBrowser(t, a, withTimeout(3*time.Minute))
	visit(t, cand, strings.TrimPrefix(links[1], a.URL))
	waitUntilReloaded(t, cand, `document.querySelector("#room[data-role=candidate]")`)
	waitFor(t, cand, `#room[data-lang="python"] .cm-editor[data-editor="python"]`)
	checkAxe(t, cand, "the candidate's page of a Python room")

	reference := contentFile(t, "problems/async-refund/reference/refund.py")
	evalJS[bool](t, iv, `(window.faultlineRoom.editor.setValue(`+jsString(reference)+`), true)`)
	waitUntil(t, iv, "the reference sent", `window.faultlineRoom.editor.collab.pending() === 0`, 30*time.Second)
	evalJS[bool](t, iv, `(document.querySelector('form[action$="/run"] button').click(), true)`)
	waitUntil(t, iv, "the run's share button", `document.querySelector('form[action$="/share"] button')`, 150*time.Second)
	if got := text(t, iv, ".room-run h3"); !strings.Contains(got, "Every invariant held") {
		t.Fatalf("the Python reference's run says %q", got)
	}
	requireNoPageExceptions(t, iv)
}
