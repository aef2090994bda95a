package web

import (
	"fmt"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/internal/practice"
)

// answerBody is raw as an answer is stored (practice.AnswerBody).
func answerBody(raw string) string { return practice.AnswerBody(raw) }

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
