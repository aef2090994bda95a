package problems

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/yuin/goldmark/ast"
)

// Recognised ### headings under a question, normalised by normalizeHeading.
const (
	headingQuestionAnswer   = "model answer"
	headingQuestionPoints   = "key points"
	headingQuestionGuidance = "guidance"
	headingQuestionTime     = "time limit"
	headingQuestionFollowUp = "follow ups"
	// headingQuestionFollowUpAlt is the problem page's spelling, "Follow-up
	// questions", which authors reach for out of habit.
	headingQuestionFollowUpAlt = "follow up questions"
)

// maxQuestionIDLength keeps question ids short enough for URLs and form
// names; they stay unique because collisions get a numeric suffix.
const maxQuestionIDLength = 60

// buildSet fills a QuestionSet: the text before the first ## is the intro,
// and each ## heading is one question.
func (bd *builder) buildSet(fm *setFront) *QuestionSet {
	s := &QuestionSet{
		Slug:    fm.Slug,
		Title:   strings.TrimSpace(fm.Title),
		Summary: strings.TrimSpace(fm.Summary),
		Minutes: fm.Minutes,
		Tags:    tagsOf(fm.Tags),
		Source:  strings.TrimSpace(fm.Source),
		File:    bd.file.path,
	}
	s.InterviewOnly = fm.InterviewOnly
	bd.checkCommon(&fm.commonFront)
	lead, questions := bd.split(bd.topLevel(), 2, 0, len(bd.src))
	s.Intro = bd.markdown(bd.source(lead))
	_, leadSubs := bd.split(lead.nodes, 3, lead.start, lead.end)
	for _, sub := range leadSubs {
		switch normalizeHeading(sub.title) {
		case headingQuestionAnswer, headingQuestionPoints, headingQuestionGuidance, headingQuestionTime, headingQuestionFollowUp, headingQuestionFollowUpAlt:
			bd.addf(sub.line, "### %s before the first question: each question starts with a ## heading", sub.title)
		}
	}
	if len(questions) == 0 {
		bd.addf(bd.file.bodyStartLine, "no questions: write each question as a ## heading")
	}

	ids := map[string]int{}   // id -> how many questions took it, for suffixes
	texts := map[string]int{} // question text -> line, to catch repeats
	for _, c := range questions {
		q := bd.buildQuestion(c)
		key := strings.ToLower(q.Text)
		if first, ok := texts[key]; ok {
			bd.addf(c.line, "the same question appears twice (first at line %d)", first)
		}
		texts[key] = c.line
		q.ID = uniqueID(questionID(q.Text), ids)
		s.Questions = append(s.Questions, q)
	}
	return s
}

// buildQuestion reads one ## question and its ### sections. Text under the
// ## heading and before the first ### becomes the question's details.
func (bd *builder) buildQuestion(c chunk) Question {
	q := Question{Text: c.title, Line: c.line, TimeLimit: DefaultTimeLimit}
	if q.Text == "" {
		bd.addf(c.line, "empty ## heading: a question needs its text in the heading")
	}
	lead, subs := bd.split(c.nodes, 3, c.start, c.end)
	q.Details = bd.markdown(bd.source(lead))
	seen := map[string]int{}
	for _, sub := range subs {
		key := normalizeHeading(sub.title)
		heading := "### " + sub.title
		if first, ok := seen[key]; ok {
			bd.addf(sub.line, "%s appears twice in this question (first at line %d)", heading, first)
			continue
		}
		seen[key] = sub.line
		switch key {
		case headingQuestionAnswer:
			q.ModelAnswer = bd.proseSection(sub, heading)
		case headingQuestionPoints:
			q.KeyPoints = bd.keyPoints(bd.listSection(sub, heading))
		case headingQuestionGuidance:
			q.Guidance = bd.proseSection(sub, heading)
		case headingQuestionTime:
			q.TimeLimit = bd.timeLimit(sub)
		case headingQuestionFollowUp, headingQuestionFollowUpAlt:
			q.FollowUps = bd.followUps(sub, heading)
		default:
			bd.addf(sub.line, "unknown heading %s under a question: use ### Model answer, ### Key points, ### Guidance, ### Follow-ups or ### Time limit (use #### for a heading inside an answer)", heading)
		}
	}
	if q.ModelAnswer.Source == "" && q.Guidance.Source == "" && seen[headingQuestionAnswer] == 0 && seen[headingQuestionGuidance] == 0 {
		bd.addf(c.line, "question %q has no ### Model answer or ### Guidance", q.Text)
	}
	if len(q.KeyPoints) == 0 && seen[headingQuestionPoints] == 0 {
		bd.addf(c.line, "question %q has no ### Key points: list what a good answer mentions", q.Text)
	}
	return q
}

// followUps reads a ### Follow-ups section: list items that each start
// with the follow-up question in bold, then its short answer.
func (bd *builder) followUps(c chunk, heading string) []FollowUp {
	var out []FollowUp
	for _, li := range bd.listSection(c, heading) {
		question, answer, ok := bd.boldLead(li)
		if !ok {
			bd.addf(li.line, "a follow-up must start with the question in bold, then its answer: - **What if the key expired?** Then ...")
			continue
		}
		out = append(out, FollowUp{Question: bd.inline(question), Answer: bd.inline(answer), Line: li.line})
	}
	return out
}

// timeLimit reads a ### Time limit section: one Go duration.
func (bd *builder) timeLimit(c chunk) time.Duration {
	if len(c.nodes) != 1 {
		bd.addf(c.line, "### Time limit must hold one Go duration such as 90s or 2m")
		return DefaultTimeLimit
	}
	n := c.nodes[0]
	_, isPara := n.(*ast.Paragraph)
	if !isPara {
		bd.addf(bd.nodeLine(n), "### Time limit must hold one Go duration such as 90s or 2m")
		return DefaultTimeLimit
	}
	d := bd.duration(plainText(n, bd.src), bd.nodeLine(n), "### Time limit")
	if d == 0 {
		return DefaultTimeLimit
	}
	return d
}

// questionID makes a slug of a question's text: lower-case letters and
// digits, words joined by hyphens, cut at a word boundary.
func questionID(text string) string {
	var words []string
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			words = append(words, word.String())
			word.Reset()
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			word.WriteRune(r)
		case r == '\'' || r == '’':
			// "what's" -> "whats", not "what-s"
		default:
			flush()
		}
	}
	flush()
	id := ""
	for _, w := range words {
		next := w
		if id != "" {
			next = id + "-" + w
		}
		if len(next) > maxQuestionIDLength && id != "" {
			break
		}
		id = next
	}
	if len(id) > maxQuestionIDLength {
		id = id[:maxQuestionIDLength]
	}
	if id == "" {
		id = "question"
	}
	return id
}

// uniqueID returns id, or id-2, id-3, ... when an earlier question in the
// set already took it.
func uniqueID(id string, taken map[string]int) string {
	taken[id]++
	if taken[id] == 1 {
		return id
	}
	for n := taken[id]; ; n++ {
		candidate := fmt.Sprintf("%s-%d", id, n)
		if taken[candidate] == 0 {
			taken[candidate] = 1
			return candidate
		}
	}
}
