package web

import (
	"github.com/faultline-dev/faultline/internal/gradewire"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A sequence diagram of one run, drawn on the server as SVG: a lane per
// worker, one for the store and one for the provider, a row per event of
// the trace in virtual-clock order, and beside each row what happened in
// words. It is built from the trace the grader records (actor, kind, text)
// so a reader sees two refunds land on the provider's lane, a reply that
// never arrives, a process that dies.

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

// Lane names that are not workers.
const (
	laneStore    = "store"
	laneProvider = "provider"
	laneClock    = "clock"
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
	shapeMoney   = "money"   // the provider moved money
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
	Count  int    // a refund's number in the run, for the provider's coin mark
	Text   string // the whole event, in words, for the text alternative
	Actor  string
}

var (
	reqNumber    = regexp.MustCompile(`request #(\d+)`)
	applied      = regexp.MustCompile(`^request (#\d+): refund (\S+) of (\d+) applied`)
	executing    = regexp.MustCompile(`^request (#\d+): starts executing under key (.*)$`)
	lostReply    = regexp.MustCompile(`^the reply to request (#\d+) .*is lost$`)
	dies         = regexp.MustCompile(`^the process of (\S+) dies ([^:]*)`)
	createNumber = regexp.MustCompile(`^CreateRefund #(\d+)`)
	emptyReturn  = regexp.MustCompile(`returns "",?`)
)

// storeCalls are the harness's store methods; any other worker call that
// is not the provider's is drawn as a step on the worker's own lane.
var storeCalls = []string{"GetRecord", "Claim", "MarkDone", "MarkFailed", "MarkNeedsCheck", "MarkProcessing",
	"Release", "SaveKey", "SetKey", "Update", "Save", "Renew", "Extend"}

func callName(text string) string {
	if i := strings.IndexAny(text, "( "); i > 0 {
		return text[:i]
	}
	return text
}

func isStoreCall(text string) bool {
	name := callName(text)
	return slices.Contains(storeCalls, name) || strings.HasPrefix(name, "Mark")
}

func isProviderCall(text string) bool {
	name := callName(text)
	return name == "CreateRefund" || name == "ListRefunds" || name == "GetRefund"
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

// labelWidth is room enough for label at 12 px in the fonts the site
// names (system-ui and its fallbacks average under 6.5 px a character):
// the picture is as wide as its longest label needs, never cut.
func labelWidth(label string) int {
	return int(float64(len([]rune(label)))*seqCharW+0.5) + seqTextPd
}

// newSequenceDiagram lays out a trace.
func newSequenceDiagram(id string, trace []gradewire.TraceEvent, truncated bool) *sequenceDiagram {
	d := &sequenceDiagram{ID: id, Truncated: truncated}
	var workers []string
	for _, e := range trace {
		if e.Actor != laneStore && e.Actor != laneProvider && e.Actor != laneClock && !slices.Contains(workers, e.Actor) {
			workers = append(workers, e.Actor)
		}
	}
	slices.SortStableFunc(workers, func(a, b string) int { return naturalCompare(a, b) })
	names := append([]string{laneStore}, workers...)
	names = append(names, laneProvider)
	x := map[string]int{}
	for i, n := range names {
		x[n] = seqTimeW + seqLaneW/2 + i*seqLaneW
		d.Lanes = append(d.Lanes, seqLane{Name: n, X: x[n]})
	}
	textX := seqTimeW + len(names)*seqLaneW
	d.Width = textX + seqTextW

	requester := map[string]string{} // provider request number -> the worker that sent it
	crashedAt := map[string]int{}
	refunds, lost, crashes := 0, 0, 0
	y := seqHeadH + seqRowH/2
	lastAt := ""
	add := func(e gradewire.TraceEvent, shape string, x1, x2 int, label string) {
		text := eventWords(e.Text)
		if label == "" {
			label = text
		}
		label = strings.ReplaceAll(eventWords(label), " -> ", " → ")
		d.Rows = append(d.Rows, seqRow{Y: y, At: e.At, ShowAt: e.At != lastAt, Shape: shape, X1: x1, X2: x2,
			Label: label, Text: text, Actor: e.Actor})
		if w := textX + 8 + labelWidth(label); w > d.Width {
			d.Width = w
		}
		lastAt = e.At
		y += seqRowH
	}
	for _, e := range trace {
		switch e.Actor {
		case laneClock:
			add(e, shapeRule, x[names[0]], x[laneProvider], "")
		case laneStore:
			add(e, shapeNote, x[laneStore], 0, "store: "+e.Text)
		case laneProvider:
			to := x[requester[firstMatch(reqNumber, e.Text)]]
			switch {
			case e.Kind == "drop" && strings.HasPrefix(e.Text, "request #"):
				// A request lost on the way: it breaks off before the provider.
				lost++
				from := to
				if from == 0 {
					from = x[laneProvider]
				}
				add(e, shapeLost, from, x[laneProvider], "")
			case e.Kind == "drop":
				lost++
				if to == 0 {
					to = x[workers[0]]
				}
				label := ""
				if m := lostReply.FindStringSubmatch(e.Text); m != nil {
					label = "the reply to " + m[1] + " is lost"
				}
				add(e, shapeLost, x[laneProvider], to, label)
			case strings.Contains(e.Text, " applied to "):
				refunds++
				label := "money out: " + afterColon(e.Text)
				if m := applied.FindStringSubmatch(e.Text); m != nil {
					label = "money out: refund " + m[2] + " of " + m[3] + " (" + m[1] + ")"
				}
				add(e, shapeMoney, x[laneProvider], 0, label)
				d.Rows[len(d.Rows)-1].Count = refunds
			case executing.MatchString(e.Text):
				m := executing.FindStringSubmatch(e.Text)
				add(e, shapeNote, x[laneProvider], 0, "provider runs "+m[1]+", key "+m[2])
			default:
				add(e, shapeNote, x[laneProvider], 0, "provider: "+afterColon(e.Text))
			}
		default: // a worker
			w := x[e.Actor]
			switch {
			case e.Kind == "crash":
				crashes++
				if _, ok := crashedAt[e.Actor]; !ok && strings.Contains(e.Text, "dies") {
					crashedAt[e.Actor] = y
				}
				label := e.Actor + ": " + e.Text
				if m := dies.FindStringSubmatch(e.Text); m != nil {
					label = m[1] + " dies " + m[2]
				}
				add(e, shapeCrash, w, 0, label)
			case e.Kind == "call" && isProviderCall(e.Text):
				if n := firstMatch(createNumber, e.Text); n != "" {
					requester[n] = e.Actor
				}
				add(e, shapeCall, w, x[laneProvider], providerCallLabel(e.Text))
			case e.Kind == "call" && isStoreCall(e.Text):
				call, result, ok := strings.Cut(e.Text, " -> ")
				add(e, shapeCall, w, x[laneStore], call)
				if ok {
					add(gradewire.TraceEvent{At: e.At, Actor: e.Actor, Kind: "reply", Text: e.Text}, shapeReply, x[laneStore], w, "→ "+result)
					d.Rows[len(d.Rows)-1].Text = "" // the call's row says it all
				}
			case e.Kind == "reply" && strings.HasPrefix(e.Text, "RefundMoney("):
				shape := shapeEnd
				if strings.Contains(e.Text, " panics") {
					shape = shapeCrash
					crashes++
				}
				add(e, shape, w, 0, e.Actor+": "+e.Text)
			case e.Kind == "reply" && strings.Contains(e.Text, "TimeoutError"):
				label := ""
				if n := firstMatch(createNumber, e.Text); n != "" {
					_, why, _ := strings.Cut(e.Text, "TimeoutError: ")
					label = "#" + n + " timed out: " + why
				}
				add(e, shapeTimeout, w, 0, label)
			case e.Kind == "reply" && strings.Contains(e.Text, "(never sent)"):
				add(e, shapeLost, w, x[laneProvider], "")
			case e.Kind == "reply" && isProviderCall(e.Text):
				add(e, shapeReply, x[laneProvider], w, "")
			default:
				add(e, shapeNote, w, 0, e.Actor+": "+e.Text)
			}
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
	d.Caption = seqCaption(workers, trace, refunds, lost, crashes)
	return d
}

// providerCallLabel keeps what tells two refund requests apart, the
// number and the key, and drops the rest, which the text alternative keeps.
func providerCallLabel(text string) string {
	n := firstMatch(createNumber, text)
	if n == "" {
		return text
	}
	key := "no key"
	if i := strings.Index(text, "key "); i >= 0 && !strings.Contains(text, "no key") {
		k := text[i+len("key "):]
		if j := strings.IndexAny(k, ",)"); j >= 0 {
			k = k[:j]
		}
		key = "key " + k
	}
	return "CreateRefund #" + n + ", " + key
}

func firstMatch(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// afterColon shortens a provider event's "request #N: " prefix to "#N ",
// the number its arrow carries.
func afterColon(s string) string {
	if rest, ok := strings.CutPrefix(s, "request "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			return num + " " + tail
		}
	}
	return s
}

func seqCaption(workers []string, trace []gradewire.TraceEvent, refunds, lost, crashes int) string {
	var b strings.Builder
	b.WriteString(joinWords(workers))
	b.WriteString(", the store and the provider, over ")
	b.WriteString(strings.TrimPrefix(trace[len(trace)-1].At, "+"))
	b.WriteString(" of virtual time. The provider applied ")
	b.WriteString(plural(refunds, "refund"))
	if lost > 0 {
		b.WriteString("; " + plural(lost, "message") + " lost")
	}
	if crashes == 1 {
		b.WriteString("; a process died or a call panicked")
	} else if crashes > 1 {
		b.WriteString("; processes died or calls panicked " + strconv.Itoa(crashes) + " times")
	}
	b.WriteString(".")
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
