package web

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// answerBody is raw as an answer is stored: line endings made \n and the
// white space around it gone. Text with nothing a reader could see (only
// white space, control characters such as NUL, or invisible format
// characters such as a zero-width space) is no answer at all: "". Every
// path that stores an answer or turns a draft into one goes through here,
// so "empty" means the same everywhere.
func answerBody(raw string) string {
	text := strings.TrimSpace(strings.ReplaceAll(raw, "\r\n", "\n"))
	if strings.IndexFunc(text, visible) < 0 {
		return ""
	}
	return text
}

// visible reports whether r shows as something on a page. Invalid UTF-8
// counts as visible, so the encoding check can name it.
func visible(r rune) bool {
	switch {
	case r == utf8.RuneError:
		return true
	case unicode.IsSpace(r), unicode.IsControl(r),
		unicode.In(r, unicode.Cf, unicode.Zs, unicode.Zl, unicode.Zp,
			unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return false
	}
	return true
}

// answerText validates a submitted answer; the message is shown beside the
// form when it is not acceptable.
func answerText(raw string) (text, problem string) {
	text = answerBody(raw)
	switch {
	case text == "":
		return "", "Write an answer before submitting, or choose to reveal the answer without one."
	case len(text) > maxAnswerBytes:
		return "", fmt.Sprintf("The answer is longer than %d KiB; shorten it.", maxAnswerBytes>>10)
	case !utf8.ValidString(text):
		return "", "The answer is not valid UTF-8 text."
	}
	return text, ""
}
