// Package problems holds the interview content model (problems, rapid-fire
// question sets and screens), loads it from Markdown files with YAML front
// matter, and checks it (lint) with errors that name file and line.
package problems

import "time"

// DefaultTimeLimit is the answer time for a timed question when the content
// gives none: the two minutes of a rapid-fire answer.
const DefaultTimeLimit = 2 * time.Minute

// Tags classify content for the catalogue filters.
type Tags struct {
	Topics    []string `json:"topics,omitempty"`
	Companies []string `json:"companies,omitempty"`
	Roles     []string `json:"roles,omitempty"`
}

// Markdown is author text; HTML is the same text rendered by goldmark, with
// raw HTML from the author escaped.
type Markdown struct {
	Source string `json:"source"`
	HTML   string `json:"html"`
}

// Section is a titled block of prose that the format has no special role for
// (for example "Facts about the provider"). Sections keep their file order.
type Section struct {
	Title string   `json:"title"`
	Body  Markdown `json:"body"`
}

// Item is one entry of a list section: a hint, a rubric point, a follow-up.
type Item struct {
	Text Markdown `json:"text"`
	Line int      `json:"line"`
	// Shows and Contradicts are a key point's phrases for the rubric
	// matcher: words that show the point, and misconceptions against it.
	Shows       []Phrase `json:"shows,omitempty"`
	Contradicts []Phrase `json:"contradicts,omitempty"`
}

// GlossaryEntry is a term and its definition.
type GlossaryEntry struct {
	Term       string   `json:"term"`
	Definition Markdown `json:"definition"`
}

// Part is one numbered part of a problem.
type Part struct {
	Number int      `json:"number"`
	Title  string   `json:"title"`
	Prompt Markdown `json:"prompt"`
	Hints  []Item   `json:"hints,omitempty"`  // in reveal order
	Rubric []Item   `json:"rubric,omitempty"` // "what this part should cover"
}

// Code is the optional Go code of a problem, read from files beside problem.md.
// The paths are relative to the content root (for example
// "problems/async-refund/starter/refund.go"), so they open in the same fs.FS
// the content was loaded from.
type Code struct {
	Language      string `json:"language"`
	StarterPath   string `json:"starter_path"`
	Starter       string `json:"starter"`
	ReferencePath string `json:"reference_path"`
	Reference     string `json:"reference"`
	Kit           string `json:"kit,omitempty"` // the kit that grades it (code.kit, or its old spelling code.grader), e.g. "refund"
	// ScenariosPath and Scenarios are the kit's scenarios file, for a kit
	// that grades against one (Kit.Scenarios): a grade sends them to the
	// grading child as read, so content edited at run time grades as
	// written.
	ScenariosPath string `json:"scenarios_path,omitempty"`
	Scenarios     string `json:"scenarios,omitempty"`
	// ScenarioNames are the file's scenarios in order, and CheckScenarios
	// the few its check list names for the fast pre-grade (Check): the
	// server reads them without the kit (see readScenarioList).
	ScenarioNames  []string `json:"scenario_names,omitempty"`
	CheckScenarios []string `json:"check_scenarios,omitempty"`
	// The starter and reference in Python, for a kit that grades Python
	// too (code.python_starter, code.python_reference); empty when the
	// problem has none.
	PythonStarterPath   string `json:"python_starter_path,omitempty"`
	PythonStarter       string `json:"python_starter,omitempty"`
	PythonReferencePath string `json:"python_reference_path,omitempty"`
	PythonReference     string `json:"python_reference,omitempty"`
}

// Problem is a debugging or design exercise.
type Problem struct {
	Slug         string          `json:"slug"`
	Title        string          `json:"title"`
	Summary      string          `json:"summary"`
	Difficulty   string          `json:"difficulty"`
	Minutes      int             `json:"minutes"`
	Tags         Tags            `json:"tags"`
	Source       string          `json:"source"`
	Prompt       Markdown        `json:"prompt"`
	Clarifying   []Item          `json:"clarifying,omitempty"`
	Parts        []Part          `json:"parts,omitempty"`
	StrongAnswer []Item          `json:"strong_answer,omitempty"`
	FollowUps    []Item          `json:"follow_ups,omitempty"`
	Pitfalls     []Item          `json:"pitfalls,omitempty"`
	Glossary     []GlossaryEntry `json:"glossary,omitempty"`
	Guidance     Markdown        `json:"guidance"` // "How to answer": answer material, hidden like the model answer
	ModelAnswer  Markdown        `json:"model_answer"`
	Sections     []Section       `json:"sections,omitempty"`
	TimedAnswer  time.Duration   `json:"timed_answer,omitempty"` // > 0: the problem has a timed answer box with this limit
	Code         *Code           `json:"code,omitempty"`
	File         string          `json:"file"`
	// InterviewOnly: used in live screens only (Catalog.Public).
	InterviewOnly bool `json:"interview_only,omitempty"`
}

// Question is one rapid-fire question.
type Question struct {
	ID          string        `json:"id"`      // slug made from the question text, unique in its set
	Text        string        `json:"text"`    // the ## heading, as plain text
	Details     Markdown      `json:"details"` // optional text under the heading, before its ### sections
	ModelAnswer Markdown      `json:"model_answer"`
	KeyPoints   []Item        `json:"key_points,omitempty"`
	Guidance    Markdown      `json:"guidance"`
	FollowUps   []FollowUp    `json:"follow_ups,omitempty"`
	TimeLimit   time.Duration `json:"time_limit"`
	Line        int           `json:"line"`
}

// FollowUp is a question an interviewer may ask next, with a short answer:
// a list item under ### Follow-ups that starts with the question in bold.
type FollowUp struct {
	Question Markdown `json:"question"`
	Answer   Markdown `json:"answer"`
	Line     int      `json:"line"`
}

// QuestionSet is an ordered list of rapid-fire questions.
type QuestionSet struct {
	Slug      string     `json:"slug"`
	Title     string     `json:"title"`
	Summary   string     `json:"summary"`
	Minutes   int        `json:"minutes"`
	Tags      Tags       `json:"tags"`
	Source    string     `json:"source"`
	Intro     Markdown   `json:"intro"`
	Questions []Question `json:"questions"`
	File      string     `json:"file"`
	// InterviewOnly: used in live screens only (Catalog.Public).
	InterviewOnly bool `json:"interview_only,omitempty"`
}

// ScreenItem is one step of a screen: exactly one of Problem or Questions is set.
type ScreenItem struct {
	Problem   string `json:"problem,omitempty"`
	Questions string `json:"questions,omitempty"`
	Minutes   int    `json:"minutes,omitempty"`
	Note      string `json:"note,omitempty"`
}

// Screen is an ordered composition of problems and question sets, as an
// interviewer runs them.
type Screen struct {
	Slug    string       `json:"slug"`
	Title   string       `json:"title"`
	Summary string       `json:"summary"`
	Minutes int          `json:"minutes"`
	Tags    Tags         `json:"tags"`
	Source  string       `json:"source"`
	Intro   Markdown     `json:"intro"`
	Items   []ScreenItem `json:"items"`
	File    string       `json:"file"`
	// InterviewOnly: used in live screens only (Catalog.Public).
	InterviewOnly bool `json:"interview_only,omitempty"`
}

// Catalog is all loaded content, in a stable order (by slug within each kind).
type Catalog struct {
	Problems []*Problem
	Sets     []*QuestionSet
	Screens  []*Screen
}
