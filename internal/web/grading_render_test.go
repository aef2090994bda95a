package web

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/storage"
)

// TestRunEndRenderedWhenRead: a run's log keeps a stand-in for its end,
// with nothing rendered, and a stream reading it gets the final event built
// then from the end the grading kept: the report's HTML is rendered by
// the reader, not by the grading goroutine.
func TestRunEndRenderedWhenRead(t *testing.T) {
	report, err := json.Marshal(&gradewire.Report{Version: gradewire.ReportVersion, Kit: "refund", Status: gradewire.StatusPass,
		Diagnostics: []gradewire.Diagnostic{}, Scenarios: []gradewire.ScenarioReport{},
		Summary: gradewire.Summary{ScenariosPassed: 2, ScenariosTotal: 2, Defects: []gradewire.DefectStatus{}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		end      storage.GradeRun
		want     string // the final event's name
		contains string // in its data
	}{
		{"a report", storage.GradeRun{ID: 7, Status: storage.GradeDone, ReportJSON: report}, "report", `"html":"`},
		{"busy", storage.GradeRun{ID: 7, Status: storage.GradeBusy, RetryAfter: 3 * time.Second, Message: "busy"}, "busy", `"retry_after_s":3`},
		{"a system error", storage.GradeRun{ID: 7, Status: storage.GradeSystemError, Message: messageAbandoned}, "system-error", "stopped before it finished"},
		{"never finished in the store", storage.GradeRun{ID: 7, Status: storage.GradeRunning}, "system-error", "The grader failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			r := &liveRun{id: 7, events: live.NewMemoryLog(runTopic(7), live.NewInProcess())}
			r.addProgress(gradewire.ScenarioReport{Name: "a", Status: gradewire.StatusPass})
			seq := r.finish(tt.end)

			raw, err := r.events.EventsAfter(ctx, 0, 10)
			if err != nil || len(raw) != 2 {
				t.Fatalf("the log = %+v, %v; want a progress event and the end", raw, err)
			}
			if end := raw[1]; end.Name != endEventName || len(end.Data) != 0 || !end.Last || end.Seq != seq {
				t.Errorf("the log's end = %+v; want the bare stand-in, last, number %d", end, seq)
			}
			evs, err := r.eventsFor(slog.New(slog.DiscardHandler))(ctx, 0, 10)
			if err != nil || len(evs) != 2 {
				t.Fatalf("the stream's events = %+v, %v", evs, err)
			}
			if evs[0].Name != "progress" {
				t.Errorf("first event %q, want progress", evs[0].Name)
			}
			final := evs[1]
			if final.Name != tt.want || !final.Last || final.Seq != seq || !strings.Contains(string(final.Data), tt.contains) {
				t.Errorf("final event = %s #%d last %v: %s; want %s with %q", final.Name, final.Seq, final.Last, final.Data, tt.want, tt.contains)
			}
		})
	}
}
