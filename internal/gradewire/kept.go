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
		s.Trace, s.TraceTruncated, s.EndState = []TraceEvent{}, false, nil
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
