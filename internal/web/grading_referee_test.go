package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/grading/refereetest"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// refereeLog keeps the referee's disagreements in memory.
type refereeLog struct {
	mu   sync.Mutex
	seen []grading.Disagreement
}

func (l *refereeLog) LogDisagreement(_ context.Context, d grading.Disagreement) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, d)
	return nil
}

// TestGradeThroughTheNativeReferee presses Grade on the create-client
// problem with a correct file the interpreter cannot run (refereetest's
// form), graded for real behind the
// dispatcher the server wires, with the native referee: the report the
// page shows passes, says the interpreter could not run the code
// faithfully, the stored run keeps that report, and the disagreement is
// logged. The reference is marked confirmed.
func TestGradeThroughTheNativeReferee(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary and grades natively with the go tool")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/server").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	shipped := NewContent(cat)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool := sandbox.NewPool(&sandbox.Runner{Executable: bin, Args: []string{gradewire.ChildCommand}, Limits: sandbox.DefaultLimits(), Logger: log}, 1, 4)
	t.Cleanup(func() { pool.Close() })
	svc := grading.New(pool, log)
	svc.Referee = grading.NewReferee(filepath.Join(t.TempDir(), "referee"), sandbox.DefaultLimits(), 1)
	// The go tool's own build cache holds the standard library already.
	svc.Referee.GoCache = strings.TrimSpace(string(gocache))
	disagreements := &refereeLog{}
	svc.Disagreements = disagreements
	ts := newGradingTestServer(t, &grading.Dispatcher{Service: svc, Content: shipped}, func(c *Config) { c.Catalog, c.Content = nil, shipped })
	p, _ := cat.Problem(kitSlug)
	unfaithful := refereetest.Unfaithful(t, p.Code.Reference)

	for _, tt := range []struct {
		name, code, outcome string
		want                []string // in the report's HTML
	}{
		{"interpreter cannot run it", unfaithful, gradewire.RefereeOverruled, []string{`data-referee="overruled"`, "could not run this code faithfully"}},
		{"reference", p.Code.Reference, gradewire.RefereeConfirmed, []string{`data-referee="confirmed"`, "Confirmed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := ts.newBrowser(t)
			resp := b.postCode("/problems/"+kitSlug+"/grade", tt.code, true)
			if resp.status != 202 {
				t.Fatalf("Grade: status %d: %s", resp.status, resp.body)
			}
			var started gradeStarted
			if err := json.Unmarshal([]byte(resp.body), &started); err != nil {
				t.Fatalf("Grade answered %q: %v", resp.body, err)
			}
			// No event comes while the referee builds the code natively,
			// which on a loaded machine can take longer than the usual gap.
			events := b.events(started.EventsURL)
			events.gap = 2 * time.Minute
			rep := decode[reportData](t, events.waitFor("report"), "report")
			if rep.Verdict != gradewire.StatusPass {
				t.Fatalf("verdict %q (%s), want pass", rep.Verdict, rep.Summary)
			}
			for _, w := range tt.want {
				if !strings.Contains(rep.HTML, w) {
					t.Errorf("the report lacks %q", w)
				}
			}
			run, err := ts.store.GradeRun(context.Background(), started.RunID)
			if err != nil {
				t.Fatal(err)
			}
			var stored gradewire.Report
			if err := json.Unmarshal(run.ReportJSON, &stored); err != nil || stored.Referee == nil || stored.Referee.Outcome != tt.outcome || run.Summary.Verdict != gradewire.StatusPass {
				t.Errorf("stored run: verdict %q, referee %+v (%v); want a pass, %s", run.Summary.Verdict, stored.Referee, err, tt.outcome)
			}
		})
	}
	disagreements.mu.Lock()
	defer disagreements.mu.Unlock()
	if len(disagreements.seen) != 1 || disagreements.seen[0].Problem != kitSlug || disagreements.seen[0].SourceHash != grading.SourceHash(unfaithful) {
		t.Errorf("logged %+v; want the one disagreement on %s", disagreements.seen, kitSlug)
	}
}
