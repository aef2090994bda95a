package gradewire

// What a report keeps. The pages and the terminal show a passed scenario
// by its title, description, runs and output; its trace and end state are
// read only when it failed (the run drawn as a picture, the world it left).
// A grading child sends only what is kept: a passed scenario's trace was
// most of a passing grade's bytes (issue 25), every one of them encoded in
// the child, decoded in the server and stored for nobody to read.

// Kept is s as a report keeps it: without the trace and end state of a
// passed scenario. The calls stay (the referee reads how each one ended).
func (s ScenarioReport) Kept() ScenarioReport {
	if s.Status == StatusPass {
		s.Trace, s.TraceTruncated, s.EndState, s.Choices = []TraceEvent{}, false, nil, nil
	}
	return s
}

// Kept is r with every scenario as a report keeps it (ScenarioReport.Kept).
func (r *Report) Kept() *Report {
	c := *r
	c.Scenarios = make([]ScenarioReport, len(r.Scenarios))
	for i, s := range r.Scenarios {
		c.Scenarios[i] = s.Kept()
	}
	return &c
}

// Keeps is r as j asks a child to send it: as kept (Kept), or whole when
// j keeps passed scenarios (KeepPassed).
func (j Job) Keeps(r *Report) *Report {
	if j.KeepPassed {
		return r
	}
	return r.Kept()
}

// Streamed is r's line on the result pipe after its scenarios went ahead,
// one line each in the report's order: the report without them, which the
// parent puts back (Attach). A passing grade's scenarios made half of
// what a child sent when they travelled twice.
func (r *Report) Streamed() ChildMessage {
	c := *r
	c.Scenarios = []ScenarioReport{}
	return ChildMessage{Report: &c, Streamed: len(r.Scenarios)}
}

// Attach puts back into m's report the scenarios streamed ahead of it
// (Report.Streamed), and reports false when they are not the ones the
// line counts: a child that broke the protocol. A report line that
// carries its scenarios needs nothing.
func (m *ChildMessage) Attach(streamed []ScenarioReport) bool {
	if m.Report == nil || m.Streamed == 0 {
		return true
	}
	if len(m.Report.Scenarios) > 0 || len(streamed) != m.Streamed {
		return false
	}
	m.Report.Scenarios = append([]ScenarioReport{}, streamed...)
	return true
}

// InvariantText is what an invariant says of itself: the same in every
// scenario that checks it.
type InvariantText struct {
	Title string `json:"title"`
	Why   string `json:"why,omitempty"`
}

// Texts are the invariants' texts, by id, that one end of a result pipe
// has sent or received. A child sends an invariant's title and why on the
// first scenario line that checks it, and leaves them out of every line
// (ChildMessage.Short) after: they were three quarters of what a passing
// grade's scenarios sent. The parent puts them back, so the report is
// the same.
type Texts map[string]InvariantText

// Shorten leaves the title and why out of the invariants of m's scenario,
// and puts on m the texts not sent before. A scenario that gives one id
// two texts is sent whole.
func (t Texts) Shorten(m *ChildMessage) {
	s := m.Scenario
	if s == nil {
		return
	}
	line := map[string]InvariantText{}
	for _, inv := range s.Invariants {
		text := InvariantText{Title: inv.Title, Why: inv.Why}
		if other, ok := line[inv.ID]; ok && other != text {
			return
		}
		line[inv.ID] = text
	}
	c := *s
	c.Invariants = make([]InvariantResult, len(s.Invariants))
	for i, inv := range s.Invariants {
		text := InvariantText{Title: inv.Title, Why: inv.Why}
		if sent, ok := t[inv.ID]; !ok || sent != text {
			if m.Texts == nil {
				m.Texts = map[string]InvariantText{}
			}
			m.Texts[inv.ID] = text
			t[inv.ID] = text
		}
		inv.Title, inv.Why = "", ""
		c.Invariants[i] = inv
	}
	m.Scenario, m.Short = &c, true
}

// Fill puts back the texts Shorten left out of m's scenario, and reports
// false when one of its invariants has none: a child that broke the
// protocol.
func (t Texts) Fill(m *ChildMessage) bool {
	for id, text := range m.Texts {
		t[id] = text
	}
	if m.Scenario == nil || !m.Short {
		return true
	}
	for i := range m.Scenario.Invariants {
		inv := &m.Scenario.Invariants[i]
		text, ok := t[inv.ID]
		if !ok {
			return false
		}
		inv.Title, inv.Why = text.Title, text.Why
	}
	m.Short, m.Texts = false, nil
	return true
}

// Streamer makes a grading child's lines as the parent reads them back:
// each finished scenario as kept (Kept), its invariants' texts once
// (Texts), then the report without the scenarios that went ahead
// (Streamed). The zero value is ready; one Streamer serves one job, on one
// goroutine at a time. KeepPassed sends passed scenarios whole, as a job
// that keeps them asks (Job.KeepPassed).
type Streamer struct {
	KeepPassed bool
	texts      Texts
	names      []string // the scenarios sent, in order
}

// Scenario is the line of a finished scenario.
func (st *Streamer) Scenario(s ScenarioReport) ChildMessage {
	if st.texts == nil {
		st.texts = Texts{}
	}
	kept := s
	if !st.KeepPassed {
		kept = s.Kept()
	}
	m := ChildMessage{Scenario: &kept}
	st.texts.Shorten(&m)
	st.names = append(st.names, s.Name)
	return m
}

// Report is the report's line: without its scenarios when they are the
// ones sent ahead, in their order; whole (as kept) otherwise, as when a
// scenario after a leaking one was sent but left out of the report.
func (st *Streamer) Report(r *Report) ChildMessage {
	same := len(st.names) == len(r.Scenarios)
	for i := 0; same && i < len(st.names); i++ {
		same = st.names[i] == r.Scenarios[i].Name
	}
	if same {
		return r.Streamed()
	}
	return ChildMessage{Report: Job{KeepPassed: st.KeepPassed}.Keeps(r)}
}
