package web

import (
	"strconv"

	"github.com/faultline-dev/faultline/internal/problems"
)

// The divider between the problem and the code: the problem's share of
// the width in percent. At 1366 px the default leaves the editor column
// about 760 px, above the 600 px the issue asks for; the bounds keep
// either side readable.
const (
	dividerDefault = 40
	dividerMin     = 25
	dividerMax     = 65
)

// checksSectionTitle is the title of the content section that lists what
// the grader checks (its scenarios and invariants). Before anything is
// written that list is Part 1's answer, so it is shown beside results only.
const checksSectionTitle = "What the grader checks"

// workspaceTab is one tab of the workspace: the panel it shows.
type workspaceTab struct {
	Label  string
	Panel  string // the id of the panel
	Staged bool   // hidden until the candidate reaches Part 2 or the code
	Code   bool   // the editor's panel, a tab only on narrow screens
}

// workspaceView is how a code problem's page lays out its parts.
type workspaceView struct {
	Tabs      []workspaceTab
	Reference []problems.Section // the harness reference: staged
	Checks    []problems.Section // what the grader checks: with results
	// ReferenceOpen: the candidate has already started on the code or on
	// Part 2, so the staged panel is shown from the start.
	ReferenceOpen bool
}

// workspaceOf sorts a code problem's parts into the workspace's panels.
func workspaceOf(p *problems.Problem, hintsShown map[int]int, code codeWorkspaceState) workspaceView {
	v := workspaceView{Tabs: []workspaceTab{{Label: "Problem", Panel: "ws-statement"}}}
	for _, part := range p.Parts {
		v.Tabs = append(v.Tabs, workspaceTab{Label: "Part " + strconv.Itoa(part.Number), Panel: partID(part.Number)})
	}
	for _, sec := range p.Sections {
		if sec.Title == checksSectionTitle {
			v.Checks = append(v.Checks, sec)
		} else {
			v.Reference = append(v.Reference, sec)
		}
	}
	if len(v.Reference) > 0 || len(p.Glossary) > 0 {
		v.Tabs = append(v.Tabs, workspaceTab{Label: "Reference", Panel: "ws-reference", Staged: true})
	}
	v.Tabs = append(v.Tabs, workspaceTab{Label: "Answer", Panel: "ws-answer"},
		workspaceTab{Label: "Code", Panel: "ws-code", Code: true})
	later := false
	for n, shown := range hintsShown {
		later = later || n > 1 && shown > 0
	}
	v.ReferenceOpen = code.FromDraft || code.Latest != nil || later
	return v
}
