package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/storage/storagetest"
)

// TestNewRefusesAStoreWithoutPractice: every write of practising goes
// through practice.Service, so a store that keeps only what the pages
// read is refused at start, naming what it lacks.
func TestNewRefusesAStoreWithoutPractice(t *testing.T) {
	pagesOnly := struct{ Store }{storagetest.Open(t)}
	_, err := New(Config{Catalog: testCatalog(), Store: pagesOnly, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err == nil || !strings.Contains(err.Error(), "practice.Store") {
		t.Fatalf("New with a store without practice = %v; want a refusal naming practice.Store", err)
	}
}

// TestPlainFormSubmitEndsTheRunningBox: a form posted without the session
// field (no script) while the box's clock runs ends that box, timed,
// through the handler; a second plain answer, with no box running, is
// stored untimed.
func TestPlainFormSubmitEndsTheRunningBox(t *testing.T) {
	ts, clock := newTimedServer(t)
	b := ts.newBrowser(t)
	b.start(questionBase, "timed")
	clock.Advance(40 * time.Second)
	for i, want := range []string{storage.ModeTimed, ""} {
		if p := b.post(questionBase+"/answer", url.Values{"answer": {"An answer from a plain form."}}); p.status != http.StatusOK {
			t.Fatalf("plain submit %d: status %d", i+1, p.status)
		}
		a, err := ts.store.Attempt(context.Background(), b.userID(), storage.KindSet, "rapid")
		if err != nil {
			t.Fatal(err)
		}
		latest, err := ts.store.LatestTimedAnswers(context.Background(), a.ID)
		if err != nil {
			t.Fatal(err)
		}
		got := latest["question:what-is-rag"].Timing
		if got.Mode != want || want != "" && got.TimeUsed != 40*time.Second {
			t.Errorf("plain submit %d: timing %+v; want mode %q", i+1, got, want)
		}
	}
}
