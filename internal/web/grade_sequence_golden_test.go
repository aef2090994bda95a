package web

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// sequenceGoldens are the drawn runs kept as golden files: every scenario
// of a golden report that has a trace, each drawn as the report draws it.
var sequenceGoldens = []struct {
	report func(*testing.T) *gradewire.Report
	golden string
}{
	{func(t *testing.T) *gradewire.Report { return goldenReport(t, starterGolden) }, "testdata/refund-starter-sequence.html"},
	{func(t *testing.T) *gradewire.Report { return goldenReport(t, referenceGolden) }, "testdata/refund-reference-sequence.html"},
	{kitStarterReport, "testdata/createclient-starter-sequence.html"},
}

// TestSequenceDiagramGolden: the diagrams of a report are drawn the same
// way every time, byte for byte. A change to the drawing, or to what a kit
// says of its events, shows here as a diff to read.
func TestSequenceDiagramGolden(t *testing.T) {
	for _, g := range sequenceGoldens {
		t.Run(g.golden, func(t *testing.T) {
			rep := g.report(t)
			var buf bytes.Buffer
			for _, s := range rep.Scenarios {
				if len(s.Trace) == 0 {
					continue
				}
				f := newFailedScenario(s, rep.Story, "")
				if f.Diagram == nil {
					t.Fatalf("%s: no diagram", s.Name)
				}
				if err := sequenceView(f.Diagram, s.Title).Render(context.Background(), &buf); err != nil {
					t.Fatal(err)
				}
				buf.WriteString("\n")
			}
			out := buf.String()
			if *update {
				if err := os.WriteFile(g.golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(g.golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out != string(want) {
				i := 0
				for i < len(out) && i < len(want) && out[i] == want[i] {
					i++
				}
				t.Errorf("the diagrams differ from %s near byte %d:\n got: %.300s\nwant: %.300s\n(run with -update if the change is intended)",
					g.golden, i, out[i:], want[i:])
			}
		})
	}
}
