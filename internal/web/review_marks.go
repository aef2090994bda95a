package web

import (
	"strings"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rubricmatch"
)

// matchMark is the rubric matcher's mark of one key point, as the box
// shows it beside the candidate's own tick.
type matchMark struct {
	rubricmatch.Mark
	Words []string // the answer's words that earned it, as written
}

// matchMarks runs the rubric matcher on the last answer: one mark per key
// point, or nil when there is no answer or the content lists no phrases
// for any of its key points (the matcher would only say "not found").
func (b answerBoxState) matchMarks() []matchMark {
	if b.Last == nil || !hasPhrases(b.KeyPoints) {
		return nil
	}
	body := b.Last.Body
	marks := rubricmatch.Match(body, problems.MatcherPoints(b.KeyPoints))
	out := make([]matchMark, len(marks))
	for i, m := range marks {
		out[i].Mark = m
		for _, e := range m.Evidence {
			if e.For != (m.Verdict == rubricmatch.Covered) {
				continue // the mark's own evidence only
			}
			for _, sp := range e.Spans {
				if sp.Start >= 0 && sp.End <= len(body) && sp.Start < sp.End {
					out[i].Words = append(out[i].Words, body[sp.Start:sp.End])
				}
			}
		}
	}
	return out
}

func hasPhrases(items []problems.Item) bool {
	for _, it := range items {
		if len(it.Shows)+len(it.Contradicts) > 0 {
			return true
		}
	}
	return false
}

// markedAnswer is the last answer cut into runs, the words the matcher
// found in <mark>.
func (b answerBoxState) markedAnswer(marks []matchMark) []rubricmatch.Run {
	var spans []rubricmatch.Span
	for _, m := range marks {
		for _, e := range m.Evidence {
			spans = append(spans, e.Spans...)
		}
	}
	return rubricmatch.Runs(b.Last.Body, spans)
}

// markText is what the box says of one key point: the verdict, why, and
// the words.
func (m matchMark) text() string {
	s := "Matcher: " + m.Verdict.Label()
	if m.Verdict != rubricmatch.NotFound {
		s += " (" + m.Why()
		if len(m.Words) > 0 {
			s += `; your words: “` + strings.Join(m.Words, `”, “`) + `”`
		}
		s += ")"
	}
	return s
}
