package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// fakeRecognition stands in for the browser's speech recognition, which a
// headless browser cannot use: starting it fails as the browser would when
// the microphone is refused. permission is what the Permissions API says
// of the microphone.
func fakeRecognition(permission string) string {
	return `(() => {
		window.webkitSpeechRecognition = window.SpeechRecognition = class {
			start() { setTimeout(() => { this.onerror({ error: "not-allowed" }); this.onend(); }, 20); }
			stop() {}
		};
		const query = navigator.permissions.query.bind(navigator.permissions);
		navigator.permissions.query = (d) => d && d.name === "microphone" ?
			Promise.resolve({ state: "` + permission + `", onchange: null }) : query(d);
	})()`
}

func beforeEveryPage(t *testing.T, ctx context.Context, script string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		t.Fatal(err)
	}
}

// TestDictateOnlyWhereItCanWork: the Dictate button shows where the browser
// has speech recognition and the microphone is not denied; when the browser
// refuses, the box says so in plain words and the text stays editable; with
// the microphone denied, or with no recognition, there is no button.
func TestDictateOnlyWhereItCanWork(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	tests := []struct {
		name, script string
		shown        bool
	}{
		{"refused when started", fakeRecognition("prompt"), true},
		{"microphone denied", fakeRecognition("denied"), false},
		{"no recognition", `delete window.webkitSpeechRecognition; delete window.SpeechRecognition;`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := newBrowser(t, a)
			beforeEveryPage(t, ctx, tt.script)
			visitOK(t, ctx, timedProblem)
			waitFor(t, ctx, "#answer-text-box [data-timer-clock]")
			if !tt.shown {
				// The permission answer is asynchronous: give it a moment.
				waitUntil(t, ctx, "the box to settle", `new Promise(r => setTimeout(() => r(true), 300))`)
				if !evalJS[bool](t, ctx, `document.querySelector("[data-dictate]").hidden`) {
					t.Error("Dictate is shown where recognition cannot work")
				}
				return
			}
			waitUntil(t, ctx, "Dictate to show", `!document.querySelector("[data-dictate]").hidden`)
			evalJS[bool](t, ctx, `(document.querySelector("[data-dictate]").click(), true)`)
			waitUntil(t, ctx, "the refusal to be told", `document.querySelector("[data-timer-notice]").textContent !== ""`)
			if got := text(t, ctx, "[data-timer-notice]"); !strings.Contains(got, "did not allow the microphone") {
				t.Errorf("after a refusal the box says %q; want plain words about the microphone", got)
			}
			if got := text(t, ctx, "[data-dictate]"); got != "Dictate" {
				t.Errorf("after a refusal the button reads %q; want Dictate", got)
			}
			requireNoPageExceptions(t, ctx)
		})
	}
}
