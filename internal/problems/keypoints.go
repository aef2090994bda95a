package problems

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/rubricmatch"
)

// Phrase is one phrase an author wrote under a key point for the rubric
// matcher (internal/rubricmatch), with its line.
type Phrase struct {
	Text string `json:"text"`
	Line int    `json:"line"`
}

// matcherLine is a nested list item under a key point that lists phrases:
// "- shows: a | b" or "- contradicts: c".
var matcherLine = regexp.MustCompile(`^[-*+]\s+([A-Za-z-]+)\s*:\s*(.*)$`)

const (
	matcherShows       = "shows"
	matcherContradicts = "contradicts"
)

// keyPoints reads the items of a list the candidate ticks (a question's
// key points, a problem's strong-answer points). An item may end with
// nested items that list the phrases that show it and the misconceptions
// that contradict it, "|" between phrases:
//
//   - The key is stored before the first call
//   - shows: store the key before | persist the key first
//   - contradicts: a new key for each attempt
//
// They are taken out of the item's text (the page never shows them) and
// checked here, each at its own line.
func (bd *builder) keyPoints(lis []listItem) []Item {
	var out []Item
	for _, li := range lis {
		lines := strings.Split(li.text, "\n")
		cut := len(lines)
		for i := 1; i < len(lines); i++ {
			if m := matcherLine.FindStringSubmatch(strings.TrimSpace(lines[i])); m != nil && isMatcherKey(m[1]) {
				cut = i
				break
			}
		}
		text := strings.TrimSpace(strings.Join(lines[:cut], "\n"))
		if text == "" {
			bd.addf(li.line, "empty list item")
			continue
		}
		it := Item{Text: bd.inline(text), Line: li.line}
		for i := cut; i < len(lines); i++ {
			line := li.line + i
			raw := strings.TrimSpace(lines[i])
			if raw == "" {
				continue
			}
			m := matcherLine.FindStringSubmatch(raw)
			if m == nil || !isMatcherKey(m[1]) {
				bd.addf(line, "after a key point's shows: and contradicts: lines only more of them may follow; this line would not be shown (move it above them)")
				continue
			}
			kind := strings.ToLower(m[1])
			if kind != matcherShows && kind != matcherContradicts {
				bd.addf(line, "%s: is not a matcher line: write shows: (phrases that show the key point) or contradicts: (misconceptions)", m[1])
				continue
			}
			if strings.TrimSpace(m[2]) == "" {
				bd.addf(line, "%s: lists no phrases (write phrases separated by |)", kind)
				continue
			}
			for _, p := range strings.Split(m[2], "|") {
				p = strings.TrimSpace(p)
				if problem := rubricmatch.CheckPhrase(p); problem != "" {
					bd.addf(line, "%s: %s", kind, problem)
					continue
				}
				if dup, where := findSame(it, p); dup != "" {
					bd.addf(line, "%s: the phrase %q matches the same words as %q (%s)", kind, p, dup, where)
					continue
				}
				ph := Phrase{Text: p, Line: line}
				if kind == matcherShows {
					it.Shows = append(it.Shows, ph)
				} else {
					it.Contradicts = append(it.Contradicts, ph)
				}
			}
		}
		out = append(out, it)
	}
	return out
}

// isMatcherKey reports whether a nested item's lead word is one the
// matcher reads; a near miss ("show:", "contradict:") is taken too, so that
// the check below can name it rather than let it pass as text.
func isMatcherKey(k string) bool {
	switch strings.ToLower(k) {
	case matcherShows, matcherContradicts, "show", "shown", "contradict", "contradicted", "misconception", "misconceptions":
		return true
	}
	return false
}

// hasMatcherLines reports the first nested shows: or contradicts: line of
// a list item, as an offset in lines, or -1.
func hasMatcherLines(text string) int {
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		if m := matcherLine.FindStringSubmatch(strings.TrimSpace(lines[i])); m != nil && isMatcherKey(m[1]) {
			return i
		}
	}
	return -1
}

// findSame finds a phrase of the item that matches the same words as p.
func findSame(it Item, p string) (string, string) {
	for _, q := range it.Shows {
		if rubricmatch.SamePhrase(p, q.Text) {
			return q.Text, "under shows:, line " + strconv.Itoa(q.Line)
		}
	}
	for _, q := range it.Contradicts {
		if rubricmatch.SamePhrase(p, q.Text) {
			return q.Text, "under contradicts:, line " + strconv.Itoa(q.Line)
		}
	}
	return "", ""
}

// MatcherPoints is a list of key points as the rubric matcher takes them.
func MatcherPoints(items []Item) []rubricmatch.KeyPoint {
	out := make([]rubricmatch.KeyPoint, len(items))
	for i, it := range items {
		for _, p := range it.Shows {
			out[i].Shows = append(out[i].Shows, p.Text)
		}
		for _, p := range it.Contradicts {
			out[i].Contradicts = append(out[i].Contradicts, p.Text)
		}
	}
	return out
}
