package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/web"
)

// BenchmarkStartup measures what serve does before it listens: load and
// render all embedded content, create a fresh database and apply the
// migrations, build the app. bench/startup.sh measures the whole process
// (exec to first /healthz answer) and its memory.
func BenchmarkStartup(b *testing.B) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := b.TempDir()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		cat, _, err := loadContent("", content.FS)
		if err != nil {
			b.Fatal(err)
		}
		store, err := storage.Open(context.Background(), filepath.Join(dir, fmt.Sprintf("run%d.db", i)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := web.New(web.Config{Catalog: cat, Store: store, Log: log}); err != nil {
			b.Fatal(err)
		}
		store.Close()
	}
}
