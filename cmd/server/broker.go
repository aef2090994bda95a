package main

import (
	"context"
	"log/slog"
	"strings"

	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/live/pgbroker"
)

// closingBroker is a live.Broker whose Close ends every stream following
// it, which is how a stopping instance hands its streams over: the
// browsers reconnect, perhaps to another instance, and resume from
// Last-Event-ID.
type closingBroker interface {
	live.Broker
	Close()
}

// isPostgresURL reports whether -db names a Postgres database rather than
// a SQLite file.
func isPostgresURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// openBroker is the broker the instance's live streams follow: on
// Postgres, LISTEN/NOTIFY, so that every instance on the database sees
// every other's events; on SQLite (one instance by nature) the in-process
// one.
func openBroker(ctx context.Context, db string, log *slog.Logger) (closingBroker, error) {
	if isPostgresURL(db) {
		return pgbroker.Open(ctx, db, log)
	}
	return live.NewInProcess(), nil
}
