package rooms

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/storage"
)

// ScorecardVersion is the version of Scorecard's JSON shape. It changes
// only when a field is removed or changes meaning; fields may be added
// without it changing, so a reader ignores the fields it does not know.
const ScorecardVersion = 1

// Scorecard is what a room came to, for the interviewer to keep: a fold
// of the whole log. Its JSON is the export's stable shape (version 1):
//
//	{
//	  "version": 1,
//	  "room": {"id", "source_kind": "screen"|"problem", "source_slug", "title",
//	           "created_at", "ended_at": time|null, "expires_at", "duration_ms"},
//	  "recommendation": "strong_no"|"no"|"yes"|"strong_yes"|"" (none given),
//	  "items": [{
//	    "index" (from 0), "kind": "problem"|"question", "slug", "title",
//	    "time_on_step_ms", "clock_used_ms", "clock_limit_ms",
//	    "hints_released", "hints_total", "score", "max_score",
//	    "rubric": [{"part" (0 for a question's key points), "point" (from 1),
//	                "text" (Markdown), "score": 0..3|null, "max_score",
//	                "note", "evidence": {"run", "scenario", "invariant", "status"}|null}],
//	    "runs": [{"run", "started_at", "finished_at": time|null,
//	              "status": "running"|"done"|"busy"|"system-error", "verdict",
//	              "summary", "scenarios_passed", "scenarios_total", "shared"}],
//	    "code" (a problem's shared code as the room left it; "" for a question),
//	    "answer" (a question's answer text; "" for a problem),
//	    "answer_late" (its text that came after the clock ran out; "" for none),
//	    "answer_submitted" (the candidate submitted it)
//	  }],
//	  "notes": Markdown source,
//	  "signals": [{"at", "at_ms", "kind": "paste"|"hidden"|"visible", "item",
//	               "bytes", "where": "code"|"answer"|"", "hidden_ms"}]
//	}
//
// Times are RFC 3339 in UTC; durations are whole milliseconds; at_ms
// counts from the room's creation. Lists are never null.
type Scorecard struct {
	Version        int               `json:"version"`
	Room           ScorecardRoom     `json:"room"`
	Recommendation string            `json:"recommendation"`
	Items          []ScorecardItem   `json:"items"`
	Notes          string            `json:"notes"`
	Signals        []ScorecardSignal `json:"signals"`
}

// ScorecardRoom is the room's identity and times.
type ScorecardRoom struct {
	ID         string     `json:"id"`
	SourceKind string     `json:"source_kind"`
	SourceSlug string     `json:"source_slug"`
	Title      string     `json:"title"`
	CreatedAt  time.Time  `json:"created_at"`
	EndedAt    *time.Time `json:"ended_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	// DurationMS runs from creation to the end, or to the expiry or now
	// for a room that was not ended.
	DurationMS int64 `json:"duration_ms"`
}

// ScorecardItem is one step's record.
type ScorecardItem struct {
	Index int    `json:"index"`
	Kind  string `json:"kind"`
	Slug  string `json:"slug"` // the problem's, or "<set>/<question id>"
	Title string `json:"title"`
	// TimeOnStepMS is the wall time the room spent on the step;
	// ClockUsedMS the time its clock counted (paused spans excluded).
	TimeOnStepMS  int64            `json:"time_on_step_ms"`
	ClockUsedMS   int64            `json:"clock_used_ms"`
	ClockLimitMS  int64            `json:"clock_limit_ms"`
	HintsReleased int              `json:"hints_released"`
	HintsTotal    int              `json:"hints_total"`
	Score         int              `json:"score"`     // the scored points' sum
	MaxScore      int              `json:"max_score"` // MaxScore for every point
	Rubric        []ScorecardPoint `json:"rubric"`
	Runs          []ScorecardRun   `json:"runs"`
	// Code is the step's shared code as the room left it (a problem
	// with code); "" otherwise. Language is what it is written in ("go"
	// or "python"; "" for a step without code).
	Code     string `json:"code"`
	Language string `json:"language,omitempty"`
	Answer   string `json:"answer"`
	// AnswerLate is text that came after the step's clock and its
	// grace ran out: kept, but not the answer.
	AnswerLate      string `json:"answer_late"`
	AnswerSubmitted bool   `json:"answer_submitted"`
}

// ScorecardPoint is a rubric point (or a question's key point) and its
// score; Score is nil when the interviewer did not score it.
type ScorecardPoint struct {
	Part     int    `json:"part"`
	Point    int    `json:"point"`
	Text     string `json:"text"`
	Score    *int   `json:"score"`
	MaxScore int    `json:"max_score"`
	Note     string `json:"note"`
	Evidence *Cite  `json:"evidence"`
}

// ScorecardRun is one grading of the step's code.
type ScorecardRun struct {
	Run             int64      `json:"run"`
	StartedAt       time.Time  `json:"started_at"`
	FinishedAt      *time.Time `json:"finished_at"`
	Status          string     `json:"status"`
	Verdict         string     `json:"verdict"`
	Summary         string     `json:"summary"`
	ScenariosPassed int        `json:"scenarios_passed"`
	ScenariosTotal  int        `json:"scenarios_total"`
	Shared          bool       `json:"shared"`
}

// ScorecardSignal is a fact about the candidate's session.
type ScorecardSignal struct {
	At       time.Time `json:"at"`
	AtMS     int64     `json:"at_ms"`
	Kind     string    `json:"kind"`
	Item     int       `json:"item"`
	Bytes    int       `json:"bytes"`
	Where    string    `json:"where"`
	HiddenMS int64     `json:"hidden_ms"`
}

// Scorecard folds the room's log into its scorecard. Only the
// interviewer's access reaches it; the room may have ended or expired.
func (s *Service) Scorecard(ctx context.Context, a Access) (Scorecard, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return Scorecard{}, err
	}
	evs, err := s.readAll(ctx, a.Room.ID)
	if err != nil {
		return Scorecard{}, err
	}
	title := a.Room.SourceSlug
	if sc := s.Screen(a); sc != nil {
		title = sc.Title
	} else if len(a.Items) > 0 {
		title = a.Items[0].Title()
	}
	sc, err := scorecardOf(a, title, evs, s.now())
	if err != nil {
		return Scorecard{}, err
	}
	for i, it := range a.Items {
		if it.HasCode() {
			if sc.Items[i].Code, _, err = s.CodeText(ctx, a, it); err != nil {
				return Scorecard{}, err
			}
			sc.Items[i].Language = it.Language
		}
	}
	return sc, nil
}

func scorecardOf(a Access, title string, evs []storage.RoomEvent, now time.Time) (Scorecard, error) {
	f, err := fold(a.Items, evs)
	if err != nil {
		return Scorecard{}, err
	}
	r := a.Room
	r.EndedAt = endedAt(r, evs)
	end := now
	if !r.EndedAt.IsZero() {
		end = r.EndedAt
	} else if end.After(r.ExpiresAt) {
		end = r.ExpiresAt
	}
	sc := Scorecard{Version: ScorecardVersion, Recommendation: f.pv.recommend, Notes: f.pv.notes,
		Items: []ScorecardItem{}, Signals: []ScorecardSignal{},
		Room: ScorecardRoom{ID: r.ID, SourceKind: r.SourceKind, SourceSlug: r.SourceSlug, Title: title,
			CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), DurationMS: max(end.Sub(r.CreatedAt), 0).Milliseconds()}}
	if !r.EndedAt.IsZero() {
		t := r.EndedAt.UTC()
		sc.Room.EndedAt = &t
	}
	onStep, finished := stepTimes(evs, r.CreatedAt, end, len(a.Items))
	for _, it := range a.Items {
		si := ScorecardItem{Index: it.Index, Title: it.Title(), TimeOnStepMS: onStep[it.Index].Milliseconds(),
			HintsReleased: len(f.sh.released[it.Index]), HintsTotal: len(it.hints()), Rubric: []ScorecardPoint{}, Runs: []ScorecardRun{}}
		clock := f.sh.clocks[it.Index]
		si.ClockLimitMS, si.ClockUsedMS = clock.Limit.Milliseconds(), clock.Used(end).Milliseconds()
		if it.Problem != nil {
			si.Kind, si.Slug = "problem", it.Problem.Slug
			for _, p := range it.Problem.Parts {
				for i, pt := range p.Rubric {
					si.Rubric = append(si.Rubric, scoredPoint(f.pv.scores, it.Index, p.Number, i, pt.Text.Source))
				}
			}
		} else {
			si.Kind, si.Slug, si.Answer = "question", it.Set.Slug+"/"+it.Question.ID, f.sh.answers[it.Index]
			si.AnswerLate, si.AnswerSubmitted = f.sh.late[it.Index], f.sh.submitted[it.Index]
			for i, pt := range it.Question.KeyPoints {
				si.Rubric = append(si.Rubric, scoredPoint(f.pv.scores, it.Index, 0, i, pt.Text.Source))
			}
		}
		for _, p := range si.Rubric {
			si.MaxScore += p.MaxScore
			if p.Score != nil {
				si.Score += *p.Score
			}
		}
		for _, run := range f.pv.runs {
			if run.Item == it.Index {
				si.Runs = append(si.Runs, scorecardRun(run, finished[run.Run]))
			}
		}
		sc.Items = append(sc.Items, si)
	}
	for _, sg := range f.pv.signals {
		out := ScorecardSignal{At: sg.At.UTC(), AtMS: max(sg.At.Sub(r.CreatedAt), 0).Milliseconds(), Item: sg.Item,
			Bytes: sg.Bytes, Where: sg.Where, HiddenMS: sg.HiddenMS}
		switch sg.Kind {
		case KindSignalPaste:
			out.Kind = "paste"
		case KindSignalHidden:
			out.Kind, out.Item = "hidden", -1
		case KindSignalVisible:
			out.Kind, out.Item = "visible", -1
		}
		sc.Signals = append(sc.Signals, out)
	}
	return sc, nil
}

func scoredPoint(scores map[ScoreKey]RubricScored, item, part, i int, text string) ScorecardPoint {
	p := ScorecardPoint{Part: part, Point: i + 1, Text: text, MaxScore: MaxScore}
	if got, ok := scores[ScoreKey{Item: item, Part: part, Point: i}]; ok {
		score := got.Score
		p.Score, p.Note, p.Evidence = &score, got.Note, got.Cite
	}
	return p
}

func scorecardRun(r Run, finishedAt time.Time) ScorecardRun {
	out := ScorecardRun{Run: r.Run, StartedAt: r.Started.UTC(), Status: "running", Shared: r.Shared}
	if !r.Finished {
		return out
	}
	t := finishedAt.UTC()
	out.FinishedAt, out.Status, out.Verdict, out.Summary = &t, r.Status, r.Verdict, r.Summary
	var rep struct {
		Summary gradewire.Summary `json:"summary"`
	}
	if len(r.Report) > 0 && json.Unmarshal(r.Report, &rep) == nil {
		out.ScenariosPassed, out.ScenariosTotal = rep.Summary.ScenariosPassed, rep.Summary.ScenariosTotal
	}
	return out
}

// stepTimes is the wall time spent on each step (the room is on step 0
// from its creation until the first item.changed, and on its last step
// until end), and when each run finished.
func stepTimes(evs []storage.RoomEvent, created, end time.Time, items int) ([]time.Duration, map[int64]time.Time) {
	on := make([]time.Duration, items)
	finished := map[int64]time.Time{}
	cur, since := 0, created
	for _, ev := range evs {
		switch ev.Kind {
		case KindItemChanged:
			var p ItemChanged
			if json.Unmarshal(ev.Payload, &p) != nil || p.Item < 0 || p.Item >= items || p.Item == cur {
				continue
			}
			if cur < items {
				on[cur] += max(ev.At.Sub(since), 0)
			}
			cur, since = p.Item, ev.At
		case KindRunFinished:
			var p RunFinished
			if json.Unmarshal(ev.Payload, &p) == nil {
				if _, ok := finished[p.Run]; !ok {
					finished[p.Run] = ev.At
				}
			}
		}
	}
	if cur < items {
		on[cur] += max(end.Sub(since), 0)
	}
	return on, finished
}

// JSON is the scorecard's export: its JSON, indented, with a final
// newline.
func (sc Scorecard) JSON() ([]byte, error) {
	data, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("rooms: encode the scorecard of room %s: %w", sc.Room.ID, err)
	}
	return append(data, '\n'), nil
}

// Markdown is the scorecard as a Markdown document, for pasting into a
// hiring system. What the interviewer or the content wrote is kept as
// written, except in tables, where a line break or a "|" would break
// the row.
func (sc Scorecard) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Scorecard: %s\n\n", oneLine(sc.Room.Title))
	fmt.Fprintf(&b, "- Room: `%s` (from the %s `%s`)\n", sc.Room.ID, sc.Room.SourceKind, sc.Room.SourceSlug)
	fmt.Fprintf(&b, "- Opened: %s\n", mdTime(sc.Room.CreatedAt))
	if sc.Room.EndedAt != nil {
		fmt.Fprintf(&b, "- Ended: %s\n", mdTime(*sc.Room.EndedAt))
	} else {
		fmt.Fprintf(&b, "- Not ended; expires %s\n", mdTime(sc.Room.ExpiresAt))
	}
	fmt.Fprintf(&b, "- Duration: %s\n", mdDuration(sc.Room.DurationMS))
	fmt.Fprintf(&b, "- Recommendation: **%s**\n", RecommendationLabel(sc.Recommendation))
	b.WriteString("\n## Summary\n\n| Step | Time on it | Score | Grader |\n| --- | --- | --- | --- |\n")
	for _, it := range sc.Items {
		fmt.Fprintf(&b, "| %d. %s | %s | %d of %d | %s |\n", it.Index+1, cell(it.Title), mdDuration(it.TimeOnStepMS), it.Score, it.MaxScore, cell(it.GraderWords()))
	}
	for _, it := range sc.Items {
		fmt.Fprintf(&b, "\n## Step %d: %s (%s)\n\n", it.Index+1, oneLine(it.Title), it.Kind)
		fmt.Fprintf(&b, "- Time on the step: %s; clock used %s of %s\n", mdDuration(it.TimeOnStepMS), mdDuration(it.ClockUsedMS), mdDuration(it.ClockLimitMS))
		if it.Kind == "problem" {
			fmt.Fprintf(&b, "- Hints released: %d of %d\n", it.HintsReleased, it.HintsTotal)
		}
		fmt.Fprintf(&b, "- Score: %d of %d\n", it.Score, it.MaxScore)
		if len(it.Rubric) > 0 {
			b.WriteString("\n| Part | Point | Score | Evidence | Note |\n| --- | --- | --- | --- | --- |\n")
			for _, p := range it.Rubric {
				score := "not scored"
				if p.Score != nil {
					score = fmt.Sprintf("%d of %d", *p.Score, p.MaxScore)
				}
				evidence := ""
				if p.Evidence != nil {
					evidence = fmt.Sprintf("run %d: `%s` in `%s` %s", p.Evidence.Run, p.Evidence.Invariant, p.Evidence.Scenario, p.Evidence.Status)
				}
				part := strconv.Itoa(p.Part)
				if p.Part == 0 {
					part = "key point"
				}
				fmt.Fprintf(&b, "| %s | %d. %s | %s | %s | %s |\n", part, p.Point, cell(p.Text), score, cell(evidence), cell(p.Note))
			}
		}
		if len(it.Runs) > 0 {
			b.WriteString("\nGrader runs:\n\n")
			for _, r := range it.Runs {
				summary := strings.TrimSuffix(oneLine(r.Summary), ".") + "."
				if r.Status == "running" {
					summary = "Did not finish."
				}
				if r.Shared {
					summary += " Shared with the candidate."
				}
				fmt.Fprintf(&b, "- Run %d, %s: %s\n", r.Run, mdTime(r.StartedAt), summary)
			}
		}
		if it.Code != "" {
			fmt.Fprintf(&b, "\nFinal code (%s):\n\n", storage.LanguageLabel(it.Language))
			fenced(&b, cmp.Or(it.Language, storage.LangGo), it.Code)
		}
		if it.Kind == "question" {
			b.WriteString("\nAnswer:\n\n")
			quote(&b, it.Answer)
			if !it.AnswerSubmitted && it.Answer != "" {
				b.WriteString("\n(Not submitted: the text as last saved.)\n")
			}
			if it.AnswerLate != "" {
				b.WriteString("\nText that came after the time ran out (late, not the answer):\n\n")
				quote(&b, it.AnswerLate)
			}
		}
	}
	b.WriteString("\n## Signals\n\n")
	if len(sc.Signals) == 0 {
		b.WriteString("None.\n")
	}
	for _, sg := range sc.Signals {
		at := mdDuration(sg.AtMS)
		switch sg.Kind {
		case "paste":
			fmt.Fprintf(&b, "- At %s, step %d: pasted %d bytes into the %s\n", at, sg.Item+1, sg.Bytes, sg.Where)
		case "hidden":
			fmt.Fprintf(&b, "- At %s: the tab was hidden\n", at)
		case "visible":
			fmt.Fprintf(&b, "- At %s: the tab came back after %s\n", at, mdDuration(sg.HiddenMS))
		}
	}
	b.WriteString("\n## Notes\n\n")
	if strings.TrimSpace(sc.Notes) == "" {
		b.WriteString("None.\n")
	} else {
		b.WriteString(strings.TrimRight(sc.Notes, "\n") + "\n")
	}
	return b.String()
}

// quote writes what the candidate typed as a Markdown quote, or "(none)",
// so that it reads as they typed it and nothing in it acts as Markdown in
// the viewer the scorecard is pasted into: each line, whatever ended it
// (a lone carriage return ends a line in CommonMark too), stays inside
// the quote, and every character that could start markup (an image that
// fetches a remote address, a link, raw HTML, emphasis, a heading, a
// list) is escaped.
func quote(b *strings.Builder, text string) {
	if text == "" {
		b.WriteString("(none)\n")
		return
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	for line := range strings.SplitSeq(text, "\n") {
		b.WriteString("> " + escapeLine(line) + "\n")
	}
}

// escapeLine backslash-escapes what in line CommonMark (and GitHub's
// tables and strikethrough) would read as markup: inline marks anywhere,
// block marks at the line's start (a heading, a list item, a setext
// underline, a numbered item's "1." or "1)"), and the line's opening
// spaces, which would make indented code. Other punctuation is left as
// typed, so the quote reads as the answer did.
func escapeLine(line string) string {
	var b strings.Builder
	start, digits := true, true
	for _, r := range line {
		switch {
		case start && r == ' ':
			b.WriteString("&#32;")
			continue
		case start && r == '\t':
			b.WriteString("&#9;")
			continue
		case r < 0x20 || r == 0x7f:
			b.WriteRune(' ') // a control character: nothing a reader sees
		case strings.ContainsRune("\\`*_[]<>!&|~", r),
			start && strings.ContainsRune("#-+=", r),
			digits && !start && (r == '.' || r == ')'):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
		digits = digits && r >= '0' && r <= '9'
		start = false
	}
	return b.String()
}

// fenced writes text as a fenced code block, in a fence longer than any
// run of backticks in it, so nothing in it can close the block.
func fenced(b *strings.Builder, lang, text string) {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	b.WriteString(fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n")
}

// GraderWords is the step's last grader run in a few words: what passed,
// or that it did not finish; "" for a step with no run.
func (it ScorecardItem) GraderWords() string {
	if len(it.Runs) == 0 {
		if it.Kind == "problem" {
			return "not run"
		}
		return ""
	}
	r := it.Runs[len(it.Runs)-1]
	switch {
	case r.Status == "running":
		return "last run did not finish"
	case r.ScenariosTotal > 0:
		words := fmt.Sprintf("%d of %d scenarios passed", r.ScenariosPassed, r.ScenariosTotal)
		if len(it.Runs) > 1 {
			words += fmt.Sprintf(" (the last of %d runs)", len(it.Runs))
		}
		return words
	}
	return strings.TrimSuffix(oneLine(r.Summary), ".")
}

func mdTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func mdDuration(ms int64) string {
	d := (time.Duration(ms) * time.Millisecond).Round(time.Second)
	h, m, s := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case h > 0:
		return fmt.Sprintf("%d h %02d min %02d s", h, m, s)
	case m > 0:
		return fmt.Sprintf("%d min %02d s", m, s)
	}
	return fmt.Sprintf("%d s", s)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cell(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }
