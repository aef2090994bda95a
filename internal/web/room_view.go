package web

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/timer"
)

// clockAction is a button of the room's clock.
type clockAction struct{ Action, Label string }

// clockActions are the buttons that make sense for the clock now.
func clockActions(c rooms.ClockAt) []clockAction {
	switch c.Phase {
	case timer.ClockIdle:
		return []clockAction{{rooms.TimerStart, "Start the clock"}}
	case timer.ClockRunning:
		return []clockAction{{rooms.TimerPause, "Pause"}, {rooms.TimerExtend, "Add 5 minutes"}}
	case timer.ClockPaused:
		return []clockAction{{rooms.TimerResume, "Resume"}, {rooms.TimerExtend, "Add 5 minutes"}}
	case timer.ClockUp:
		return []clockAction{{rooms.TimerExtend, "Add 5 minutes"}}
	}
	return nil
}

func recommendationWord(r string) string {
	switch r {
	case "strong_no":
		return "Strong no"
	case "no":
		return "No"
	case "yes":
		return "Yes"
	case "strong_yes":
		return "Strong yes"
	}
	return r
}

var scoreWords = [...]string{"Not covered", "Partly", "Covered", "Strongly covered"}

func scoreWord(n int) string {
	if n >= 0 && n < len(scoreWords) {
		return strconv.Itoa(n) + " " + scoreWords[n]
	}
	return strconv.Itoa(n)
}

func scoreID(k rooms.ScoreKey) string {
	return fmt.Sprintf("score-%d-%d-%d", k.Item, k.Part, k.Point)
}

func signalText(sg rooms.Signal) string {
	switch sg.Kind {
	case rooms.KindSignalPaste:
		return fmt.Sprintf("pasted %s into the %s", plural(sg.Bytes, "byte"), sg.Where)
	case rooms.KindSignalHidden:
		return "the tab was hidden or lost focus"
	case rooms.KindSignalVisible:
		return fmt.Sprintf("the tab came back after %.1f s", float64(sg.HiddenMS)/1000)
	}
	return sg.Kind
}

// rubricGroup is one part's rubric, or a question's key points (Part 0).
type rubricGroup struct {
	Title  string
	Part   int
	Points []string // HTML
}

func rubricGroups(it rooms.Item) []rubricGroup {
	if it.Problem == nil {
		g := rubricGroup{Title: "Key points"}
		for _, kp := range it.Question.KeyPoints {
			g.Points = append(g.Points, kp.Text.HTML)
		}
		return []rubricGroup{g}
	}
	var out []rubricGroup
	for _, p := range it.Problem.Parts {
		g := rubricGroup{Title: fmt.Sprintf("Part %d: %s", p.Number, p.Title), Part: p.Number}
		for _, r := range p.Rubric {
			g.Points = append(g.Points, r.Text.HTML)
		}
		if len(g.Points) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// citeChoices is what a score may cite as its evidence: a scenario of the
// latest finished run, then one of the invariants its reports judge. Two
// lists, not one of every pair: the pairs of a run of the refund starter
// made 778 options, repeated for each rubric point, 1.6 MB of the
// interviewer's page, which is swapped on every event of the room.
type citeChoices struct {
	Scenarios  []citeChoice // value "run:scenario"
	Invariants []citeChoice // value the invariant's id
}

// citeChoice is one option.
type citeChoice struct{ Value, Label string }

// newCiteChoices reads the latest finished run of the interviewer's view;
// nil when there is none.
func newCiteChoices(runs []rooms.Run) *citeChoices {
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if !r.Finished || len(r.Report) == 0 {
			continue
		}
		rep, err := decodeReport(r.Report)
		if err != nil {
			return nil
		}
		var out citeChoices
		seen := map[string]bool{}
		for _, sc := range rep.Scenarios {
			broken := 0
			for _, inv := range sc.Invariants {
				if inv.Status == gradewire.InvariantNotChecked {
					continue
				}
				if inv.Status == gradewire.InvariantViolated {
					broken++
				}
				if !seen[inv.ID] {
					seen[inv.ID] = true
					out.Invariants = append(out.Invariants, citeChoice{Value: inv.ID, Label: inv.Title})
				}
			}
			label := fmt.Sprintf("Run %d, %s: %s", r.Run, sc.Title, scenarioStatusWord(sc.Status))
			if broken > 0 {
				label += fmt.Sprintf(" (%s broken)", plural(broken, "invariant"))
			}
			out.Scenarios = append(out.Scenarios, citeChoice{Value: fmt.Sprintf("%d:%s", r.Run, sc.Name), Label: label})
		}
		return &out
	}
	return nil
}

// scenarioChoices is the scenarios to cite, with a saved cite of an
// earlier run kept as the first choice, so saving again keeps it.
func (cc *citeChoices) scenarioChoices(saved *rooms.Cite) []citeChoice {
	if saved == nil || slices.ContainsFunc(cc.Scenarios, func(ch citeChoice) bool { return ch.Value == citeScenario(saved) }) {
		return cc.Scenarios
	}
	kept := citeChoice{Value: citeScenario(saved), Label: fmt.Sprintf("Run %d, %s (saved)", saved.Run, saved.Scenario)}
	return append([]citeChoice{kept}, cc.Scenarios...)
}

// invariantChoices is the invariants to cite, with a saved one the latest
// run does not judge kept first.
func (cc *citeChoices) invariantChoices(saved *rooms.Cite) []citeChoice {
	if saved == nil || slices.ContainsFunc(cc.Invariants, func(ch citeChoice) bool { return ch.Value == saved.Invariant }) {
		return cc.Invariants
	}
	return append([]citeChoice{{Value: saved.Invariant, Label: saved.Invariant + " (saved)"}}, cc.Invariants...)
}

// citeScenario is a cite's value in the scenario list; "" for none.
func citeScenario(c *rooms.Cite) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("%d:%s", c.Run, c.Scenario)
}

// citeInvariant is a cite's value in the invariant list; "" for none.
func citeInvariant(c *rooms.Cite) string {
	if c == nil {
		return ""
	}
	return c.Invariant
}

func citeText(c *rooms.Cite) string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf(", citing run %d: %s in %s %s", c.Run, c.Invariant, c.Scenario, c.Status)
}

// roomWorkspaceTabs are the tabs of the candidate's workspace: the
// problem, each part (with its released hints), the staged reference, and
// the code on narrow screens. The solo page's Answer tab has no place in
// a room: the interviewer hears the answer.
func roomWorkspaceTabs(it rooms.CandidateItem) []workspaceTab {
	tabs := []workspaceTab{{Label: "Problem", Panel: "ws-statement"}}
	for _, part := range it.Parts {
		tabs = append(tabs, workspaceTab{Label: "Part " + strconv.Itoa(part.Number), Panel: partID(part.Number)})
	}
	if len(it.Reference) > 0 || len(it.Glossary) > 0 {
		tabs = append(tabs, workspaceTab{Label: "Reference", Panel: "ws-reference", Staged: true})
	}
	return append(tabs, workspaceTab{Label: "Code", Panel: "ws-code", Code: true})
}

// releasedHintTexts are the hints of part the interviewer has released,
// in order.
func releasedHintTexts(it rooms.CandidateItem, part int) []string {
	var out []string
	for _, h := range it.Hints {
		if h.Part == part {
			out = append(out, string(h.HTML))
		}
	}
	return out
}

// roomEnded is the answer box's room clock once the room has ended: the
// box locks without submitting (the room takes nothing more).
const roomEnded = "ended"

// roomAnswerBox is the timed answer box of the candidate's current
// question, on the room's clock: nothing of the solo box's answer
// material (model answer, key points) is in it.
func roomAnswerBox(v rooms.CandidateView) answerBoxState {
	c := v.Clock
	b := answerBoxState{Timed: true, Base: roomItemBase(v.RoomID, v.Current.Index), Field: "room-answer-text",
		Limit: time.Duration(c.LimitMS) * time.Millisecond, Mode: timer.Timed, Remaining: time.Duration(c.RemainingMS) * time.Millisecond,
		Draft: v.Answer, RoomClock: string(c.Phase), Phase: string(c.Phase)}
	switch {
	case v.AnswerSubmitted:
		b.Phase = phaseSubmitted
	case v.Ended:
		b.Phase, b.RoomClock = string(timer.Locked), roomEnded
	case c.Phase == timer.ClockUp:
		b.Phase = string(timer.Locked)
	}
	return b
}

// roomEventWords names an event kind for people, in the interviewer's
// timeline; a kind added later and not named here reads as itself.
func roomEventWords(kind string) string {
	switch kind {
	case rooms.KindCreated:
		return "room opened"
	case rooms.KindItemChanged:
		return "moved to the next step"
	case rooms.KindHintReleased:
		return "hint given"
	case rooms.KindTimerStarted:
		return "clock started"
	case rooms.KindTimerPaused:
		return "clock paused"
	case rooms.KindTimerResumed:
		return "clock resumed"
	case rooms.KindTimerExtended:
		return "clock extended"
	case rooms.KindCodeUpdate:
		return "code edited"
	case rooms.KindCursor:
		return "cursor moved"
	case rooms.KindAnswerText:
		return "answer saved"
	case rooms.KindRunStarted:
		return "grader started"
	case rooms.KindRunFinished:
		return "grader finished"
	case rooms.KindRunShared:
		return "report shared with the candidate"
	case rooms.KindNoteSaved:
		return "notes saved"
	case rooms.KindRubricScored:
		return "rubric point scored"
	case rooms.KindRecommendationSet:
		return "recommendation set"
	case rooms.KindSignalPaste:
		return "large paste"
	case rooms.KindSignalHidden:
		return "tab hidden"
	case rooms.KindSignalVisible:
		return "tab back"
	case rooms.KindEnded:
		return "room ended"
	}
	return kind
}

// actorWord names who did something, for the timeline.
func actorWord(actor string) string {
	switch actor {
	case string(rooms.Interviewer):
		return "Interviewer"
	case string(rooms.Candidate):
		return "Candidate"
	case storage.ActorSystem:
		return "Faultline"
	}
	return actor
}
