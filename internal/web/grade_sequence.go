package web

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// A sequence diagram of one run, drawn on the server as SVG: a lane per
// actor (the kit's fakes' lanes, which it names in the report's Story,
// around the workers'), a row per event of the trace in virtual-clock
// order, and beside each row what happened in words. It is drawn from the
// structure the kit gives each event (gradewire.TraceEvent: its peer,
// outcome and message), never from the words of its text, so a reader of
// any kit's report sees a call that reached a fake, an answer that never
// came back, a process that dies, the effect the scenario counts.

// Sizes in SVG user units. The picture fills its box but shrinks no
// narrower than 45rem (grade-report.css): a narrower box, a phone's,
// scrolls sideways, so the words stay near their 12 px.
const (
	seqTimeW  = 64  // the clock column
	seqLaneW  = 92  // distance between lane centres
	seqTextW  = 330 // the least width of the column of words beside the lanes
	seqHeadH  = 34  // lane names
	seqRowH   = 22
	seqCharW  = 7.4 // a generous width of one character of a label at 12 px
	seqTextPd = 16  // room after the longest label
)

// sequenceDiagram is what the SVG template draws.
type sequenceDiagram struct {
	ID            string // prefix of the element ids
	Width, Height int
	Lanes         []seqLane
	Rows          []seqRow
	Truncated     bool
	Caption       string // what the picture shows, in one sentence
}

// seqLane is one actor's vertical line.
type seqLane struct {
	Name   string
	X      int
	EndY   int // where the line stops being solid: a crash, or the bottom
	Bottom int
}

// Shapes of a row.
const (
	shapeCall    = "call"    // arrow from caller to callee
	shapeReply   = "reply"   // arrow back
	shapeLost    = "lost"    // a dashed arrow that breaks off with a cross
	shapeMoney   = "money"   // the effect the scenario counts: a coin with its number
	shapeCrash   = "crash"   // a process died or a call panicked
	shapeTimeout = "timeout" // the caller gave up waiting
	shapeNote    = "note"    // a step on one lane: a start, a state change, a sleep, a log line
	shapeEnd     = "end"     // the entry point returned
	shapeRule    = "rule"    // the clock: a phase of the scenario begins
)

// seqRow is one event drawn.
type seqRow struct {
	Y      int
	At     string
	ShowAt bool // the clock moved since the row above
	Shape  string
	X1, X2 int // the lane of the event (X1), and the other end of an arrow (X2)
	Label  string
	Count  int    // an effect's number in the run, for its coin mark
	Text   string // the whole event, in words, for the text alternative
	Actor  string
	Rule   string // the page's rule that decided the event, cited beside its words when the kit asks (Story.CiteRules)
}

// eventWords is an event's text with its blanks named.
func eventWords(text string) string {
	return emptyReturn.ReplaceAllStringFunc(text, func(m string) string {
		if strings.HasSuffix(m, ",") {
			return "returns an empty outcome,"
		}
		return "returns an empty outcome"
	})
}

var emptyReturn = regexp.MustCompile(`returns "",?`)

// labelWidth is room enough for label at 12 px in the fonts the site
// names (system-ui and its fallbacks average under 6.5 px a character):
// the picture is as wide as its longest label needs, never cut.
func labelWidth(label string) int {
	return int(float64(len([]rune(label)))*seqCharW+0.5) + seqTextPd
}

// Outcomes of a step (faultsim's) that decide its shape.
const (
	outcomeLost     = "lost"
	outcomeUnsent   = "unsent"
	outcomeTimeout  = "timeout"
	outcomeCrash    = "crash"
	outcomePanic    = "panic"
	outcomeEffect   = "effect"
	outcomeReturned = "returned"
	outcomePhase    = "phase"
)

// drawable says whether a run can be drawn: its kit told how (story), and
// its events carry their steps. A report stored before kits told their
// story has neither, and is listed event by event instead.
func drawable(story *gradewire.Story, trace []gradewire.TraceEvent) bool {
	if story == nil || len(trace) == 0 {
		return false
	}
	for _, e := range trace {
		if e.Peer != "" || e.Outcome != "" || e.Message != "" {
			return true
		}
	}
	return false
}

// newSequenceDiagram lays out a trace whose kit tells its story.
func newSequenceDiagram(id string, story *gradewire.Story, trace []gradewire.TraceEvent, truncated bool) *sequenceDiagram {
	d := &sequenceDiagram{ID: id, Truncated: truncated}
	fixed := append(slices.Clip(story.Before), story.After...)
	var workers []string
	addActor := func(a string) {
		if a != "" && !slices.Contains(fixed, a) && !slices.Contains(workers, a) {
			workers = append(workers, a)
		}
	}
	for _, e := range trace {
		if e.Outcome != outcomePhase {
			addActor(e.Actor)
			addActor(e.Peer)
		}
	}
	slices.SortStableFunc(workers, func(a, b string) int { return naturalCompare(a, b) })
	names := append(slices.Clip(story.Before), workers...)
	names = append(names, story.After...)
	x := map[string]int{}
	for i, n := range names {
		x[n] = seqTimeW + seqLaneW/2 + i*seqLaneW
		d.Lanes = append(d.Lanes, seqLane{Name: n, X: x[n]})
	}
	textX := seqTimeW + len(names)*seqLaneW
	d.Width = textX + seqTextW

	crashedAt := map[string]int{}
	effects, lost, crashes := 0, 0, 0
	y := seqHeadH + seqRowH/2
	lastAt := ""
	add := func(e gradewire.TraceEvent, shape string, x1, x2 int, label string) {
		text := eventWords(e.Text)
		rule := ""
		if story.CiteRules {
			rule = e.Rule
		}
		if label == "" {
			label = text
		}
		label = strings.ReplaceAll(eventWords(label), " -> ", " → ")
		d.Rows = append(d.Rows, seqRow{Y: y, At: e.At, ShowAt: e.At != lastAt, Shape: shape, X1: x1, X2: x2,
			Label: label, Text: text, Actor: e.Actor, Rule: rule})
		if w := textX + 8 + labelWidth(label); w > d.Width {
			d.Width = w
		}
		lastAt = e.At
		y += seqRowH
	}
	for _, e := range trace {
		at, peer := x[e.Actor], x[e.Peer]
		from, to := at, peer
		if e.Back {
			from, to = peer, at
		}
		label := e.Message
		if label == "" && e.Peer == "" && e.Outcome != outcomePhase {
			label = e.Actor + ": " + e.Text // a mark says whose it is
		}
		switch {
		case e.Outcome == outcomePhase:
			add(e, shapeRule, x[names[0]], x[names[len(names)-1]], label)
		case e.Peer != "" && (e.Outcome == outcomeLost || e.Outcome == outcomeUnsent):
			if e.Outcome == outcomeLost {
				lost++
			}
			add(e, shapeLost, from, to, label)
		case e.Peer != "" && e.Back:
			add(e, shapeReply, from, to, label)
		case e.Peer != "":
			add(e, shapeCall, from, to, label)
			if e.Answer != "" {
				add(gradewire.TraceEvent{At: e.At, Actor: e.Actor}, shapeReply, to, from, "→ "+e.Answer)
				d.Rows[len(d.Rows)-1].Text = "" // the call's row says it all
			}
		case e.Outcome == outcomeCrash:
			crashes++
			if _, ok := crashedAt[e.Actor]; !ok {
				crashedAt[e.Actor] = y
			}
			add(e, shapeCrash, at, 0, label)
		case e.Outcome == outcomePanic:
			crashes++
			add(e, shapeCrash, at, 0, label)
		case e.Outcome == outcomeEffect:
			effects++
			add(e, shapeMoney, at, 0, label)
			d.Rows[len(d.Rows)-1].Count = effects
		case e.Outcome == outcomeTimeout:
			add(e, shapeTimeout, at, 0, label)
		case e.Outcome == outcomeReturned:
			add(e, shapeEnd, at, 0, label)
		default:
			add(e, shapeNote, at, 0, label)
		}
	}
	d.Height = y - seqRowH/2 + 8
	for i := range d.Lanes {
		d.Lanes[i].Bottom = d.Height - 4
		d.Lanes[i].EndY = d.Lanes[i].Bottom
		if cy, ok := crashedAt[d.Lanes[i].Name]; ok {
			d.Lanes[i].EndY = cy
		}
	}
	d.Caption = seqCaption(story, workers, fixed, trace, effects, lost, crashes)
	return d
}

// seqCaption says what the picture shows in a sentence or two: its lanes,
// how long the run took, how many effects, losses and crashes it holds.
func seqCaption(story *gradewire.Story, workers, fixed []string, trace []gradewire.TraceEvent, effects, lost, crashes int) string {
	var b strings.Builder
	b.WriteString(joinWords(workers))
	if len(fixed) > 0 {
		the := make([]string, len(fixed))
		for i, f := range fixed {
			the[i] = "the " + f
		}
		b.WriteString(", " + joinWords(the))
	}
	b.WriteString(", over ")
	b.WriteString(strings.TrimPrefix(trace[len(trace)-1].At, "+"))
	b.WriteString(" of virtual time.")
	var more []string
	if story.EffectBy != "" && story.Effect != "" {
		more = append(more, story.EffectBy+" "+plural(effects, story.Effect))
	}
	if lost > 0 {
		more = append(more, plural(lost, "message")+" lost")
	}
	if crashes == 1 {
		more = append(more, "a process died or a call panicked")
	} else if crashes > 1 {
		more = append(more, "processes died or calls panicked "+strconv.Itoa(crashes)+" times")
	}
	if len(more) > 0 {
		first := []rune(more[0])
		first[0] = unicode.ToUpper(first[0])
		more[0] = string(first)
		b.WriteString(" " + strings.Join(more, "; ") + ".")
	}
	return b.String()
}

func joinWords(ws []string) string {
	switch len(ws) {
	case 0:
		return "No worker"
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// naturalCompare orders worker-2 before worker-10.
func naturalCompare(a, b string) int {
	ta, na := splitNumber(a)
	tb, nb := splitNumber(b)
	if ta != tb {
		return strings.Compare(ta, tb)
	}
	return na - nb
}

func splitNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}

// Geometry of a row's shapes, for the template.

func (r seqRow) dir() int {
	if r.X2 < r.X1 {
		return -1
	}
	return 1
}

// LineEnd is where an arrow's line stops: at its head, or, for a lost
// message, two thirds of the way, where it breaks off.
func (r seqRow) LineEnd() int {
	if r.Shape == shapeLost {
		return r.X1 + (r.X2-r.X1)*2/3
	}
	return r.X2 - r.dir()*2
}

// Head is the arrowhead's points at the far end.
func (r seqRow) Head() string {
	d := r.dir()
	return pts(r.X2, r.Y, r.X2-d*9, r.Y-5, r.X2-d*9, r.Y+5)
}

// Cross is an X centred at (x, y) with arms of half-width h.
func cross(x, y, h int) string {
	return "M" + pts(x-h, y-h) + "L" + pts(x+h, y+h) + "M" + pts(x-h, y+h) + "L" + pts(x+h, y-h)
}

// LostCross is the cross where a lost message breaks off.
func (r seqRow) LostCross() string { return cross(r.LineEnd(), r.Y, 5) }

// CrashCross is the mark of a process that died.
func (r seqRow) CrashCross() string { return cross(r.X1, r.Y, 7) }

// ClockHands draws a timeout's clock face's hands.
func (r seqRow) ClockHands() string {
	return "M" + pts(r.X1, r.Y) + "L" + pts(r.X1, r.Y-5) + "M" + pts(r.X1, r.Y) + "L" + pts(r.X1+4, r.Y)
}

func pts(xy ...int) string {
	var b strings.Builder
	for i, v := range xy {
		if i > 0 {
			if i%2 == 1 {
				b.WriteByte(',')
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

func svgNum(n int) string { return strconv.Itoa(n) }

// textX is where the column of words starts.
func (d *sequenceDiagram) textX() int { return seqTimeW + len(d.Lanes)*seqLaneW + 8 }

func (d *sequenceDiagram) viewBox() string { return "0 0 " + svgNum(d.Width) + " " + svgNum(d.Height) }

// listed is the rows the text alternative lists: all but the second row
// of a store call, whose first row already says what came back.
func (d *sequenceDiagram) listed() []seqRow {
	var out []seqRow
	for _, r := range d.Rows {
		if r.Text != "" {
			out = append(out, r)
		}
	}
	return out
}
