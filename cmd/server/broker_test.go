package main

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/live/pgbroker"
	"github.com/faultline-dev/faultline/internal/pgtest"
)

func TestOpenBrokerFollowsTheDatabase(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name     string
		db       func(t *testing.T) string
		postgres bool
	}{
		{"a SQLite file", func(t *testing.T) string { return t.TempDir() + "/f.db" }, false},
		{"a file whose name starts like a scheme", func(t *testing.T) string { return "postgres.db" }, false},
		{"a postgres URL", func(t *testing.T) string { return pgtest.URL(t) }, true},
		{"a postgresql URL", func(t *testing.T) string { return "postgresql://" + pgtest.URL(t)[len("postgres://"):] }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := openBroker(context.Background(), tt.db(t), log)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			switch b.(type) {
			case *pgbroker.Broker:
				if !tt.postgres {
					t.Error("a SQLite store got the Postgres broker")
				}
			case *live.InProcess:
				if tt.postgres {
					t.Error("a Postgres store got the in-process broker: other instances would not see its events")
				}
			default:
				t.Errorf("unexpected broker %T", b)
			}
		})
	}
}
