package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/web"
)

// shutdownTimeout is how long in-flight requests get to finish after
// SIGINT/SIGTERM before the server closes their connections.
const shutdownTimeout = 15 * time.Second

// serveConfig is the configuration of the web app.
type serveConfig struct {
	Addr    string // listen address
	DB      string // SQLite file; its folder is created
	Content string // content folder; empty means the content embedded in the binary

	// onListen, when set, is told the bound address (tests listen on :0).
	onListen func(net.Addr)
	// wrap, when set, wraps the app's handler (tests add slow endpoints).
	wrap func(http.Handler) http.Handler
}

// parseServeFlags reads the serve flags; each defaults to an environment
// variable, then to a built-in value.
func parseServeFlags(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	env := func(name, fallback string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return fallback
	}
	var cfg serveConfig
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&cfg.Addr, "addr", env("FAULTLINE_ADDR", "localhost:8080"), "listen address (env FAULTLINE_ADDR)")
	flags.StringVar(&cfg.DB, "db", env("FAULTLINE_DB", "./data/faultline.db"), "SQLite database file, created with its folder if missing (env FAULTLINE_DB)")
	flags.StringVar(&cfg.Content, "content", env("FAULTLINE_CONTENT", ""), "content folder to serve instead of the content built into the binary (env FAULTLINE_CONTENT)")
	if err := flags.Parse(args); err != nil {
		return cfg, err
	}
	if flags.NArg() > 0 {
		return cfg, fmt.Errorf("serve: unexpected argument %q", flags.Arg(0))
	}
	return cfg, nil
}

// serveCommand runs the web app until ctx is cancelled.
func serveCommand(ctx context.Context, args []string, _, stderr io.Writer) int {
	cfg, err := parseServeFlags(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := run(ctx, cfg, log); err != nil {
		var invalid *invalidContentError
		if errors.As(err, &invalid) {
			printDiagnostics(stderr, invalid.root, invalid.diags)
			log.Error("refusing to start: the content has errors", "errors", len(invalid.diags), "content", invalid.root)
			return 1
		}
		log.Error("server stopped", "err", err)
		return 1
	}
	return 0
}

// invalidContentError is run's error when the content does not pass lint.
type invalidContentError struct {
	root  string
	diags []problems.Diagnostic
}

func (e *invalidContentError) Error() string {
	return fmt.Sprintf("serve: %d content errors in %s", len(e.diags), e.root)
}

// run starts the web app and serves until ctx is cancelled, then lets
// in-flight requests finish (up to shutdownTimeout).
func run(ctx context.Context, cfg serveConfig, log *slog.Logger) error {
	started := time.Now()
	cat, root, err := loadContent(cfg.Content, content.FS)
	if diags, ok := contentDiagnostics(err); ok {
		return &invalidContentError{root: root, diags: diags}
	}
	if err != nil {
		return fmt.Errorf("serve: load content: %w", err)
	}
	loaded := time.Now()
	store, err := storage.Open(ctx, cfg.DB)
	if err != nil {
		return err
	}
	opened := time.Now()
	defer store.Close()
	app, err := web.New(web.Config{Catalog: cat, Store: store, Log: log})
	if err != nil {
		return err
	}
	var handler http.Handler = app
	if cfg.wrap != nil {
		handler = cfg.wrap(handler)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", cfg.Addr, err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "url", "http://"+ln.Addr().String(), "db", cfg.DB, "content", root,
		"problems", len(cat.Problems), "sets", len(cat.Sets), "screens", len(cat.Screens),
		"content_load", loaded.Sub(started).Round(time.Millisecond),
		"db_open", opened.Sub(loaded).Round(time.Millisecond),
		"startup", time.Since(started).Round(time.Millisecond))
	if cfg.onListen != nil {
		cfg.onListen(ln.Addr())
	}

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "timeout", shutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}
