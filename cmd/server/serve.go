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
	"runtime"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/clientaddr"
	"github.com/faultline-dev/faultline/internal/grader"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/web"
)

// shutdownTimeout is how long in-flight requests get to finish after
// SIGINT/SIGTERM before the server closes their connections.
const shutdownTimeout = 15 * time.Second

// Bounds on waiting for a grading place (see run). A queued job holds only
// its source (at most 256 KiB), so 32 a place is a few MiB at worst.
const (
	gradeQueuePerPlace = 32
	gradeMaxWait       = 20 * time.Second
)

// serveConfig is the configuration of the web app.
type serveConfig struct {
	Addr    string // listen address
	DB      string // SQLite file; its folder is created
	Content string // content folder; empty means the content embedded in the binary
	// Graders is how many grading children may run at once (twice as many
	// jobs may wait for one); 0 turns grading off.
	Graders int
	// TrustedProxies lists the reverse proxies (addresses or CIDR
	// prefixes) whose X-Forwarded-For and X-Forwarded-Proto are believed;
	// empty believes none.
	TrustedProxies string

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
	graders := env("FAULTLINE_GRADERS", strconv.Itoa(runtime.NumCPU()))
	defaultGraders, err := strconv.Atoi(graders)
	if err != nil || defaultGraders < 0 {
		return cfg, fmt.Errorf("serve: FAULTLINE_GRADERS=%q: want a whole number of grading processes, 0 to turn grading off", graders)
	}
	flags.IntVar(&cfg.Graders, "graders", defaultGraders, "grading processes run at once, each in its own sandboxed child; 0 turns grading off (env FAULTLINE_GRADERS; default: the number of CPUs)")
	flags.StringVar(&cfg.TrustedProxies, "trusted-proxies", env("FAULTLINE_TRUSTED_PROXIES", ""), "reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed, as addresses or CIDR prefixes separated by commas; empty believes none (env FAULTLINE_TRUSTED_PROXIES)")
	if err := flags.Parse(args); err != nil {
		return cfg, err
	}
	if _, err := clientaddr.Parse(cfg.TrustedProxies); err != nil {
		return cfg, fmt.Errorf("serve: -trusted-proxies: %v", err)
	}
	if cfg.Graders < 0 {
		return cfg, fmt.Errorf("serve: -graders %d: want 0 (grading off) or more", cfg.Graders)
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
	proxies, err := clientaddr.Parse(cfg.TrustedProxies)
	if err != nil {
		return fmt.Errorf("serve: -trusted-proxies: %w", err)
	}
	webCfg := web.Config{Catalog: cat, Store: store, Log: log, Proxies: proxies}
	if cfg.Graders > 0 {
		// Grading children re-execute this binary (grader.ChildCommand).
		// A spare is kept started per place so a Grade skips the child's
		// start-up. A Grade waits for a place while its expected wait is
		// under gradeMaxWait (a class pressing Grade together all get
		// graded: a warm grade takes about 0.15 s), up to gradeQueuePerPlace
		// jobs a place; past either, it is told the grader is busy and when
		// to try again.
		pool := sandbox.NewPool(grader.NewChildRunner(sandbox.DefaultLimits(), log), cfg.Graders, gradeQueuePerPlace*cfg.Graders)
		pool.SetMaxWait(gradeMaxWait)
		pool.KeepWarm()
		defer pool.Close()
		webCfg.Grader = grader.NewService(pool, log)
	}
	app, err := web.New(webCfg)
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
		"problems", len(cat.Problems), "sets", len(cat.Sets), "screens", len(cat.Screens), "graders", cfg.Graders,
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
	// Gradings in flight are stopped and recorded as such (the user's code
	// is saved; they grade again), which also ends their progress streams,
	// so Shutdown is not held up by open event streams.
	if err := app.StopGrading(shutdownCtx); err != nil {
		log.Warn("gradings did not all record their end", "err", err)
	}
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}
