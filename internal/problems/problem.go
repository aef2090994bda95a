package problems

import (
	"slices"
	"strings"
	"time"
)

// Recognised ## headings of a problem, normalised by normalizeHeading.
const (
	headingClarifying   = "clarifying questions"
	headingStrongAnswer = "what a strong answer covers"
	headingFollowUps    = "follow up questions"
	headingPitfalls     = "where answers go wrong"
	headingGlossary     = "glossary"
	headingHowToAnswer  = "how to answer"
	headingModelAnswer  = "model answer"
)

// Recognised ### headings inside a part.
const (
	headingHints  = "hints"
	headingRubric = "what this part should cover"
)

// difficulties are the allowed values of a problem's difficulty.
var difficulties = []string{"easy", "medium", "hard"}

// buildProblem fills a Problem from its front matter and body.
func (bd *builder) buildProblem(fm *problemFront) *Problem {
	p := &Problem{
		Slug:       fm.Slug,
		Title:      strings.TrimSpace(fm.Title),
		Summary:    strings.TrimSpace(fm.Summary),
		Difficulty: fm.Difficulty,
		Minutes:    fm.Minutes,
		Tags:       tagsOf(fm.Tags),
		Source:     strings.TrimSpace(fm.Source),
		File:       bd.file.path,
	}
	p.InterviewOnly = fm.InterviewOnly
	bd.checkCommon(&fm.commonFront)
	if bd.file.frontOK {
		switch {
		case fm.Difficulty == "":
			bd.addf(bd.file.openLine, "missing difficulty: add difficulty: easy, medium or hard")
		case !slices.Contains(difficulties, fm.Difficulty):
			bd.addf(bd.file.keyLine("difficulty"), "unknown difficulty %q: use easy, medium or hard", fm.Difficulty)
		}
	}
	if fm.TimedAnswer != "" {
		p.TimedAnswer = bd.duration(fm.TimedAnswer, bd.file.keyLine("timed_answer"), "timed_answer")
	}

	lead, sections := bd.split(bd.topLevel(), 2, 0, len(bd.src))
	p.Prompt = bd.markdown(bd.source(lead))
	bd.rejectPartHeadings(lead, "the prompt")
	if p.Prompt.Source == "" {
		bd.addf(bd.file.bodyStartLine, "missing prompt: write the problem statement before the first ## heading")
	}

	seen := map[string]int{} // recognised heading -> line, to catch repeats
	once := func(c chunk, key string) bool {
		if first, ok := seen[key]; ok {
			bd.addf(c.line, "## %s appears twice (first at line %d)", c.title, first)
			return false
		}
		seen[key] = c.line
		return true
	}
	for _, c := range sections {
		if number, title, ok := parsePartHeading(c.title); ok {
			p.Parts = append(p.Parts, bd.buildPart(c, number, title))
			continue
		}
		heading := "## " + c.title
		if isPartHeading(c.title) {
			bd.addf(c.line, "%s is not a section of its own: put it under a ## Part N: Title heading, as ### %s", heading, c.title)
			continue
		}
		bd.rejectPartHeadings(c, heading)
		switch key := normalizeHeading(c.title); key {
		case headingClarifying:
			if once(c, key) {
				p.Clarifying = bd.items(bd.listSection(c, heading))
			}
		case headingStrongAnswer:
			if once(c, key) {
				p.StrongAnswer = bd.keyPoints(bd.listSection(c, heading))
			}
		case headingFollowUps:
			if once(c, key) {
				p.FollowUps = bd.items(bd.listSection(c, heading))
			}
		case headingPitfalls:
			if once(c, key) {
				p.Pitfalls = bd.items(bd.listSection(c, heading))
			}
		case headingGlossary:
			if once(c, key) {
				p.Glossary = bd.glossary(c)
			}
		case headingHowToAnswer:
			if once(c, key) {
				p.Guidance = bd.proseSection(c, heading)
			}
		case headingModelAnswer:
			if once(c, key) {
				p.ModelAnswer = bd.proseSection(c, heading)
			}
		default:
			if c.title == "" {
				bd.addf(c.line, "empty ## heading: give the section a title")
			}
			p.Sections = append(p.Sections, Section{Title: c.title, Body: bd.proseSection(c, heading)})
		}
	}
	for i, part := range p.Parts {
		if part.Number != i+1 {
			bd.addf(bd.partLines[i], "part %d is out of order: parts are numbered 1, 2, 3, ... in file order, and this one should be part %d", part.Number, i+1)
		}
	}
	return p
}

// proseSection renders a section that holds prose; an empty one is an error,
// since the page would show a heading over nothing.
func (bd *builder) proseSection(c chunk, heading string) Markdown {
	md := bd.markdown(bd.source(c))
	if md.Source == "" {
		bd.addf(c.line, "%s is empty", heading)
	}
	return md
}

// buildPart reads a "## Part N: Title" section: prose is its prompt, and
// ### Hints and ### What this part should cover are its lists. Any other ###
// heading stays in the prompt with its text.
func (bd *builder) buildPart(c chunk, number int, title string) Part {
	bd.partLines = append(bd.partLines, c.line)
	part := Part{Number: number, Title: title}
	lead, subs := bd.split(c.nodes, 3, c.start, c.end)
	prompt := []string{bd.source(lead)}
	var hintsLine, rubricLine int
	for _, sub := range subs {
		heading := "### " + sub.title
		switch normalizeHeading(sub.title) {
		case headingHints:
			if hintsLine != 0 {
				bd.addf(sub.line, "part %d has a second ### Hints (first at line %d)", number, hintsLine)
				continue
			}
			hintsLine = sub.line
			part.Hints = bd.items(bd.listSection(sub, heading))
		case headingRubric:
			if rubricLine != 0 {
				bd.addf(sub.line, "part %d has a second ### What this part should cover (first at line %d)", number, rubricLine)
				continue
			}
			rubricLine = sub.line
			part.Rubric = bd.items(bd.listSection(sub, heading))
		default:
			prompt = append(prompt, bd.fullSource(sub))
		}
	}
	part.Prompt = bd.markdown(strings.Join(prompt, "\n\n"))
	if part.Prompt.Source == "" {
		bd.addf(c.line, "part %d has no prompt: say what the candidate should do, under the ## heading and before its ### sections", number)
	}
	return part
}

// isPartHeading says whether a heading is one that only a part may hold.
func isPartHeading(title string) bool {
	key := normalizeHeading(title)
	return key == headingHints || key == headingRubric
}

// rejectPartHeadings reports ### Hints and ### What this part should cover
// outside a part, where nothing would show them.
func (bd *builder) rejectPartHeadings(c chunk, where string) {
	_, subs := bd.split(c.nodes, 3, c.start, c.end)
	for _, sub := range subs {
		switch normalizeHeading(sub.title) {
		case headingHints:
			bd.addf(sub.line, "### Hints outside a part (in %s): hints belong under a ## Part N: Title heading", where)
		case headingRubric:
			bd.addf(sub.line, "### What this part should cover outside a part (in %s): a rubric belongs under a ## Part N: Title heading", where)
		}
	}
}

// duration parses a Go duration such as 90s or 2m.
func (bd *builder) duration(value string, line int, what string) time.Duration {
	d, err := time.ParseDuration(strings.TrimSpace(value))
	if err != nil || d <= 0 {
		bd.addf(line, "bad duration for %s: %q (write a Go duration such as 90s or 2m)", what, value)
		return 0
	}
	return d
}

// checkCommon checks the front matter keys every kind has.
func (bd *builder) checkCommon(fm *commonFront) {
	if !bd.file.frontOK {
		return // the YAML error already says what is wrong
	}
	if strings.TrimSpace(fm.Title) == "" {
		bd.addf(bd.file.keyLine("title"), "missing title: add title: to the front matter")
	}
	if fm.Minutes < 0 {
		bd.addf(bd.file.keyLine("minutes"), "minutes must not be negative (got %d)", fm.Minutes)
	}
	for _, kind := range []struct {
		key  string
		tags []string
	}{{"topics", fm.Tags.Topics}, {"companies", fm.Tags.Companies}, {"roles", fm.Tags.Roles}} {
		for _, tag := range kind.tags {
			if strings.TrimSpace(tag) == "" {
				bd.addf(bd.file.keyLine("tags", kind.key), "empty tag in tags.%s", kind.key)
			}
		}
	}
}

func tagsOf(t tagsFront) Tags {
	trim := func(in []string) []string {
		var out []string
		for _, s := range in {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return Tags{Topics: trim(t.Topics), Companies: trim(t.Companies), Roles: trim(t.Roles)}
}
