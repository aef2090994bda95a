// Package rubricmatch marks which of a question's key points an answer
// seems to cover, from phrases the content's authors list for each point:
// phrases that show it, and misconceptions that contradict it. It is
// deterministic and offline: words are lower-cased, split, stemmed by a
// few fixed suffix rules and compared; no model and no network. Every
// mark says which words earned it, so a candidate can judge it; the page
// shows it beside their own ticks, never in their place.
//
// A phrase is found when all of its words that are not stop words appear
// in one sentence of the answer, in any order, within a window a few words
// wider than the phrase. A negation ("not", "never", "without", "don't")
// up to three words before the first of them, in the same clause, turns
// the finding around: a negated showing phrase is evidence against the
// point, and a negated misconception is evidence for it ("never reuse the
// key" against the misconception "reuse the key"). A showing phrase of
// four or more words may miss one (never its negation); a misconception
// must be there in full. Evidence for and against over the same words
// counts once: the full phrase over a partial one, and between two full
// ones the reading for the point. A point with evidence against it is then
// "contradicted", else with evidence for it "seems covered", else "not
// found".
package rubricmatch

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Verdict is the mark a key point gets.
type Verdict string

// The marks, as the page and the labelled set name them.
const (
	Covered      Verdict = "covered"
	NotFound     Verdict = "not-found"
	Contradicted Verdict = "contradicted"
)

// Label is how the page says a verdict.
func (v Verdict) Label() string {
	switch v {
	case Covered:
		return "seems covered"
	case Contradicted:
		return "contradicted"
	}
	return "not found"
}

// KeyPoint is what the matcher knows of one key point: the phrases
// written for it.
type KeyPoint struct {
	Shows, Contradicts []string
}

// Span is a run of the answer, by byte offsets.
type Span struct{ Start, End int }

// Evidence is one phrase found in the answer.
type Evidence struct {
	Phrase  string
	Negated bool // a negation came just before it
	Partial bool // one of the phrase's words was not there
	For     bool // it speaks for the key point (a showing phrase, or a negated misconception)
	Spans   []Span
}

// Mark is one key point's verdict with what earned it.
type Mark struct {
	Verdict  Verdict
	Evidence []Evidence // the phrases found, for and against
	// HasPhrases is false when the content lists no phrases for the
	// point: the matcher cannot say anything of it.
	HasPhrases bool
}

// Why says in words which phrase decided the mark.
func (m Mark) Why() string {
	switch {
	case !m.HasPhrases:
		return "no phrases are written for this key point"
	case m.Verdict == NotFound:
		return "none of its phrases is in your answer"
	}
	for _, e := range m.Evidence {
		if e.For == (m.Verdict == Covered) {
			switch {
			case e.For && e.Negated:
				return fmt.Sprintf("you ruled out the misconception %q", e.Phrase)
			case e.For && e.Partial:
				return fmt.Sprintf("matched most of %q", e.Phrase)
			case e.For:
				return fmt.Sprintf("matched %q", e.Phrase)
			case e.Negated:
				return fmt.Sprintf("you negated %q", e.Phrase)
			}
			return fmt.Sprintf("matched the misconception %q", e.Phrase)
		}
	}
	return ""
}

// Window is how many words more than twice a phrase's own its words may
// spread over: stop words count, and authors leave them out.
const Window = 4

// negationReach is how many words before a phrase a negation still
// applies to it.
const negationReach = 3

// MaxAnswerBytes bounds the text Match reads: a two-minute answer is a few
// hundred words (2 KiB or so), and the search grows with the text times the
// phrases, so an answer at the box's 64 KiB limit would cost a page render
// a tenth of a second or more (BenchmarkMatchLongAnswer). Longer answers are
// marked on their first MaxAnswerBytes, and Truncated says so.
const MaxAnswerBytes = 8 << 10

// Truncated reports whether Match reads only the start of answer.
func Truncated(answer string) bool { return len(answer) > MaxAnswerBytes }

// Match marks each key point against the answer (its first MaxAnswerBytes).
func Match(answer string, points []KeyPoint) []Mark {
	if Truncated(answer) {
		cut := MaxAnswerBytes
		for cut > 0 && !utf8.RuneStart(answer[cut]) {
			cut-- // not inside a character
		}
		answer = answer[:cut]
	}
	toks := tokenize(answer)
	out := make([]Mark, len(points))
	for i, kp := range points {
		m := Mark{Verdict: NotFound, HasPhrases: len(kp.Shows)+len(kp.Contradicts) > 0}
		var forIt, against bool
		for _, p := range kp.Shows {
			if e, ok := find(toks, p, true); ok {
				e.For = !e.Negated
				m.Evidence = append(m.Evidence, e)
				forIt, against = forIt || e.For, against || !e.For
			}
		}
		for _, p := range kp.Contradicts {
			// A misconception must be stated in full: a partial one is
			// too often the point's own words.
			if e, ok := find(toks, p, false); ok {
				e.For = e.Negated
				m.Evidence = append(m.Evidence, e)
				forIt, against = forIt || e.For, against || !e.For
			}
		}
		// Evidence for and against over the same words is one reading of
		// them too many ("keys don't last forever" is for the point, though
		// "keys ... last" under a "not" reads against it). Between two full
		// phrases, the one for the point wins.
		// A partial match gives way to a full one over the same words,
		// whichever side it is on.
		all := slices.Clone(m.Evidence)
		m.Evidence = slices.DeleteFunc(m.Evidence, func(e Evidence) bool {
			return slices.ContainsFunc(all, func(f Evidence) bool {
				if f.For == e.For || !overlaps(e.Spans, f.Spans) {
					return false
				}
				return e.Partial && !f.Partial || !e.For && !e.Partial && !f.Partial
			})
		})
		forIt, against = false, false
		for _, e := range m.Evidence {
			forIt, against = forIt || e.For, against || !e.For
		}
		switch {
		case against:
			m.Verdict = Contradicted
		case forIt:
			m.Verdict = Covered
		}
		out[i] = m
	}
	return out
}

// allowMissing is how many of a phrase's words an answer may leave out:
// one of a long showing phrase (MinWordsForPartial words or more), none
// of a short one or of a misconception. A negation in the phrase is never
// the one left out.
func allowMissing(words []token, partial bool) int {
	if partial && len(words) >= MinWordsForPartial {
		return 1
	}
	return 0
}

// MinWordsForPartial is the shortest phrase that still matches with one
// of its words missing.
const MinWordsForPartial = 4

// find looks for a phrase in the answer's tokens: the tightest place
// (the first of equals) where all its words are in one sentence within the window.
func find(toks []token, phrase string, partial bool) (Evidence, bool) {
	words := phraseWords(phrase)
	if len(words) == 0 {
		return Evidence{}, false
	}
	phraseNegated := slices.ContainsFunc(words, func(t token) bool { return t.negation })
	width := 2*len(words) + Window
	var best []int // the fullest, tightest place found
	bestMissing := 0
	for start := range toks {
		if !slices.ContainsFunc(words, func(w token) bool { return w.stem == toks[start].stem }) {
			continue
		}
		// Take each phrase word's first occurrence from start on, inside
		// the window and the sentence.
		used := make([]int, 0, len(words))
		missing := 0
		for _, w := range words {
			found := -1
			for j := start; j < len(toks) && j < start+width && toks[j].sentence == toks[start].sentence; j++ {
				if toks[j].stem == w.stem && !slices.Contains(used, j) {
					found = j
					break
				}
			}
			if found < 0 {
				missing++
				if w.negation {
					missing = len(words) // a phrase's own negation is never optional
				}
				continue
			}
			used = append(used, found)
		}
		if missing > allowMissing(words, partial) || len(used) == 0 {
			continue
		}
		slices.Sort(used)
		// The fullest match first, then the tightest.
		if best == nil || missing < bestMissing || missing == bestMissing && used[len(used)-1]-used[0] < best[len(best)-1]-best[0] {
			best, bestMissing = used, missing
		}
	}
	if best == nil {
		return Evidence{}, false
	}
	e := Evidence{Phrase: phrase, Partial: bestMissing > 0}
	if !phraseNegated {
		e.Negated, e.Spans = negation(toks, best)
	}
	if e.Negated && e.Partial {
		return Evidence{}, false // evidence against a point is the author's phrase in full
	}
	// The words from the first to the last found, so the reader sees the
	// phrase as they wrote it.
	e.Spans = mergeSpans(append(e.Spans, Span{toks[best[0]].start, toks[best[len(best)-1]].end}))
	return e, true
}

// negation finds a negation that turns the phrase found at used (sorted
// token indexes): up to negationReach words before it in its clause, or
// between its own words ("the key is not stored"). It returns the
// negation's span.
func negation(toks []token, used []int) (bool, []Span) {
	first := used[0]
	for j := first - 1; j >= 0 && j >= first-negationReach && toks[j].clause == toks[first].clause; j-- {
		// "without" negates only what it directly governs: "without a key"
		// does, "without it, we charge twice" does not.
		if toks[j].negation && (toks[j].stem != "without" || j == first-1) {
			return true, []Span{{toks[j].start, toks[j].end}}
		}
	}
	for j := first + 1; j < used[len(used)-1]; j++ {
		if toks[j].negation && !slices.Contains(used, j) {
			return true, []Span{{toks[j].start, toks[j].end}}
		}
	}
	return false, nil
}

// overlaps reports whether any span of a meets any span of b.
func overlaps(a, b []Span) bool {
	for _, x := range a {
		for _, y := range b {
			if x.Start < y.End && y.Start < x.End {
				return true
			}
		}
	}
	return false
}

func mergeSpans(spans []Span) []Span {
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	var out []Span
	for _, s := range spans {
		if n := len(out); n > 0 && s.Start <= out[n-1].End {
			out[n-1].End = max(out[n-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// CheckPhrase says what is wrong with a phrase an author wrote, or "".
func CheckPhrase(phrase string) string {
	p := strings.TrimSpace(phrase)
	switch {
	case p == "":
		return "an empty phrase"
	case len(phraseWords(p)) == 0:
		return fmt.Sprintf("the phrase %q has only common words (like \"the\", \"is\"), so it would match almost anything", p)
	}
	return ""
}

// SamePhrase reports whether two phrases match the same words.
func SamePhrase(a, b string) bool {
	wa, wb := phraseWords(a), phraseWords(b)
	if len(wa) != len(wb) {
		return false
	}
	sa, sb := stems(wa), stems(wb)
	slices.Sort(sa)
	slices.Sort(sb)
	return slices.Equal(sa, sb)
}

func stems(ts []token) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.stem
	}
	return out
}

// Highlight splits text into runs, each marked or not, from the spans of
// marks' evidence: what the page wraps in <mark>.
type Run struct {
	Text   string
	Marked bool
}

// Runs cuts text at the spans (which may overlap, in any order).
func Runs(text string, spans []Span) []Run {
	spans = mergeSpans(slices.Clone(spans))
	var out []Run
	at := 0
	for _, s := range spans {
		if s.Start < at || s.End > len(text) {
			continue
		}
		if s.Start > at {
			out = append(out, Run{Text: text[at:s.Start]})
		}
		out = append(out, Run{Text: text[s.Start:s.End], Marked: true})
		at = s.End
	}
	if at < len(text) {
		out = append(out, Run{Text: text[at:]})
	}
	return out
}
