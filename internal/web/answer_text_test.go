package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/internal/timer"
)

func TestAnswerBody(t *testing.T) {
	tests := []struct{ raw, want string }{
		{"  an answer \r\n", "an answer"},
		{"line one\r\nline two", "line one\nline two"},
		{"\x00\x00\x00", ""},
		{" \x00\t\x01\x1f\x7f\n", ""},
		{"\u200b\u200c\u200d\u2060\ufeff", ""}, // zero-width characters and a BOM
		{"\u00a0\u3000\u2028\u2029", ""},       // no-break, ideographic, line and paragraph separators
		{"\u3164\u115f\ufe0f\u034f", ""},       // Hangul fillers, a variation selector, a grapheme joiner
		{"\u0085\u00ad", ""},                   // next line, soft hyphen
		{"a\x00", "a\x00"},                     // something visible: kept as sent
		{"\x00é", "\x00é"},
		{"\u200b🙂", "\u200b🙂"},
		{"\ufffd", "\ufffd"},
		{"\xff", "\xff"}, // invalid UTF-8 is left for the encoding check to name
	}
	for _, tt := range tests {
		if got := answerBody(tt.raw); got != tt.want {
			t.Errorf("answerBody(%q) = %q; want %q", tt.raw, got, tt.want)
		}
	}
}

// invisibleAnswers are answers with nothing a reader could see.
var invisibleAnswers = []string{"\x00", strings.Repeat("\x00", 500), "\x00 \t\x01\n\x7f", "\u200b\ufeff\u2060", "\u3000\u00a0"}

// TestInvisibleAnswersAreEmpty sends answers with nothing visible down
// every path that stores an answer: each is refused as an empty one,
// with the same message, and reveals nothing.
func TestInvisibleAnswersAreEmpty(t *testing.T) {
	ts, _ := newTimedServer(t)
	const empty = "Write an answer before submitting"
	for i, answer := range invisibleAnswers {
		t.Run(fmt.Sprintf("%d %+q", i, answer), func(t *testing.T) {
			b := ts.newBrowser(t)
			t.Run("plain problem form", func(t *testing.T) {
				p := b.post("/problems/design-client/answer", url.Values{"answer": {answer}})
				if p.status != http.StatusUnprocessableEntity {
					t.Fatalf("status %d; want 422", p.status)
				}
				p.mustContain(t, empty)
				p.mustNotContain(t, "DESIGN-MODEL-MARKER")
			})
			t.Run("timed box's plain form", func(t *testing.T) {
				p := b.post(problemBase+"/answer", url.Values{"answer": {answer}})
				if p.status != http.StatusUnprocessableEntity {
					t.Fatalf("status %d; want 422", p.status)
				}
				p.mustContain(t, empty)
				p.mustNotContain(t, "MODEL-ANSWER-MARKER")
			})
			t.Run("question form", func(t *testing.T) {
				p := b.post(questionBase+"/answer", url.Values{"answer": {answer}})
				if p.status != http.StatusUnprocessableEntity {
					t.Fatalf("status %d; want 422", p.status)
				}
				p.mustContain(t, empty)
				p.mustNotContain(t, "Q1-MODEL-MARKER")
			})
			t.Run("timed submit", func(t *testing.T) {
				session, _ := b.start(questionBase, "timed")
				status, got := b.submitTimed(questionBase, session, answer)
				if status != http.StatusUnprocessableEntity || !strings.Contains(got["error"].(string), empty) {
					t.Fatalf("submit = %d %v; want 422 saying %q", status, got, empty)
				}
			})
		})
	}
}

// TestInvisibleDraftsStoreNoAnswerText: a box that locks with only
// invisible text in it stores an empty answer, and invisible text sent
// after the limit is not kept as late text.
func TestInvisibleDraftsStoreNoAnswerText(t *testing.T) {
	for i, answer := range invisibleAnswers {
		t.Run(fmt.Sprintf("%d %+q", i, answer), func(t *testing.T) {
			ts, clock := newTimedServer(t)
			b := ts.newBrowser(t)
			session, _ := b.start(problemBase, "timed")
			b.draft(problemBase, session, 1, answer)
			clock.Advance(2*time.Minute + timer.Grace + time.Second)
			b.draft(problemBase, session, 2, answer+answer) // late
			b.get(problemBase)                              // the server closes the overdue session
			status, got := b.submitTimed(problemBase, session, answer)
			if status != http.StatusOK || got["how_ended"] != "expired" {
				t.Fatalf("submit after expiry = %d %v", status, got)
			}
			a, err := ts.store.TimedAnswer(context.Background(), num(got["answer"]))
			if err != nil {
				t.Fatal(err)
			}
			if a.Body != "" || a.Timing.Late || a.Timing.LateBody != "" {
				t.Errorf("stored answer %q, late %v %q; want empty and not late", a.Body, a.Timing.Late, a.Timing.LateBody)
			}
		})
	}
}

// TestMessagesQuoteValuesWhole sends long multi-byte values that messages
// quote: the quote is cut between characters, never inside one.
func TestMessagesQuoteValuesWhole(t *testing.T) {
	ts, _ := newTimedServer(t)
	b := ts.newBrowser(t)
	session, _ := b.start(questionBase, "timed")
	long := "a" + strings.Repeat("é", 30) // the 40-byte cut falls inside an é
	wantQuote := `"a` + strings.Repeat("é", 19) + `…"`
	t.Run("page", func(t *testing.T) {
		p := b.post(questionBase+"/assessment", url.Values{"answer": {long}})
		if p.status != http.StatusBadRequest {
			t.Fatalf("status %d; want 400", p.status)
		}
		if !utf8.ValidString(p.body) {
			t.Fatal("the error page is not valid UTF-8")
		}
		p.mustContain(t, html.EscapeString(wantQuote))
	})
	for _, tt := range []struct{ name, path, field string }{
		{"sequence number", questionBase + "/timer/draft", "seq"},
		{"session", questionBase + "/timer/draft", "session"},
		{"mode", problemBase + "/timer/start", "mode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := url.Values{"session": {session}, "seq": {"5"}, "text": {"x"}}
			form.Set(tt.field, long)
			status, got := b.postJSON(tt.path, form)
			msg, _ := got["error"].(string)
			if status != http.StatusBadRequest || !strings.Contains(msg, wantQuote) || strings.ContainsRune(msg, utf8.RuneError) {
				t.Fatalf("= %d %q; want 400 quoting %s", status, msg, wantQuote)
			}
		})
	}
}
