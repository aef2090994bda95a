package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// BenchmarkPages measures serving the shipped pages in-process (routing,
// identity, the store look-ups and rendering), without the network.
func BenchmarkPages(b *testing.B) {
	cat, err := problems.Load(content.FS)
	if err != nil {
		b.Fatal(err)
	}
	store, err := storage.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	app, err := New(Config{Catalog: cat, Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	const user = "0123456789abcdef0123456789abcdef"
	a, err := store.StartAttempt(context.Background(), user, storage.KindProblem, "async-refund")
	if err != nil {
		b.Fatal(err)
	}
	if err := store.RevealHint(context.Background(), a.ID, 1, 1); err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{"/", "/problems/async-refund", "/sets/applied-ai-rapid-fire", "/screens/applied-ai-tech-screen"} {
		b.Run(path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, path, nil)
				req.AddCookie(&http.Cookie{Name: userCookie, Value: user})
				rec := httptest.NewRecorder()
				app.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d", rec.Code)
				}
			}
		})
	}
}
