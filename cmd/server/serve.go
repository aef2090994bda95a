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
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/clientaddr"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/ratelimit"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/web"
)

// shutdownTimeout is how long in-flight requests get to finish after
// SIGINT/SIGTERM before the server closes their connections.
const shutdownTimeout = 15 * time.Second

// Bounds on waiting for a grading place (see run). A queued job holds only
// its source (at most 256 KiB), so 32 a place is a few MiB at worst. The
// wait bound is past a child's wall-clock limit: with fair places a
// newcomer from another address waits for one running job at most, and a
// bound below that job's worst case would refuse them exactly when one
// address holds every place.
const (
	gradeQueuePerPlace = 32
	gradeMaxWait       = sandbox.DefaultWallTime + 5*time.Second
)

// Defaults for new identities per client address: 30 at once lets a class
// behind one NAT arrive together; then one every 20 s is a late arrival's
// wait at worst, and holds one address to 180 new identities an hour
// rather than as many as it can send requests.
const (
	defaultNewIdentities    = 30
	defaultNewIdentityEvery = 20 * time.Second
)

// serveConfig is the configuration of the web app.
type serveConfig struct {
	Addr    string // listen address
	DB      string // SQLite file (its folder is created) or postgres:// URL
	Content string // content folder; empty means the content embedded in the binary
	// Watch reloads Content when its files change, keeping the last good
	// version while an edit has errors (shown in a banner on every page).
	Watch bool
	// Graders is how many grading children may run at once (twice as many
	// jobs may wait for one); 0 turns grading off.
	Graders int
	// TrustedProxies lists the reverse proxies (addresses or CIDR
	// prefixes) whose X-Forwarded-For and X-Forwarded-Proto are believed;
	// empty believes none.
	TrustedProxies string
	// GradesPerAddress bounds the gradings one client address may have
	// running or waiting at once.
	GradesPerAddress int
	// NewIdentities is how many new identities one client address may
	// create at once (0: no limit); one more is allowed each
	// NewIdentityEvery.
	NewIdentities    int
	NewIdentityEvery time.Duration
	// WriteKiBPerSecond is the bytes, in KiB a second, one client address
	// may send to be stored, with a burst of 12 s of it; 0: no limit.
	WriteKiBPerSecond int
	// RoomTTL is how long a live screen's room stays open.
	RoomTTL time.Duration
	// RoomRetention is how long a room is kept after it expires, for its
	// record; then it is deleted with its log.
	RoomRetention time.Duration
	// Referee is the native referee's: on, and its cache directory.
	Referee refereeFlags

	// watchInterval, when set, is how often Watch polls (tests poll fast).
	watchInterval time.Duration
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
	flags.StringVar(&cfg.DB, "db", env("FAULTLINE_DB", "./data/faultline.db"), "SQLite database file, created with its folder if missing, or a postgres:// URL (env FAULTLINE_DB)")
	flags.StringVar(&cfg.Content, "content", env("FAULTLINE_CONTENT", ""), "content folder to serve instead of the content built into the binary (env FAULTLINE_CONTENT)")
	watch := env("FAULTLINE_WATCH", "false")
	defaultWatch, err := strconv.ParseBool(watch)
	if err != nil {
		return cfg, fmt.Errorf("serve: FAULTLINE_WATCH=%q: want true or false", watch)
	}
	flags.BoolVar(&cfg.Watch, "watch", defaultWatch, "reload the -content folder when its files change; an edit with errors keeps the last good version served and shows the errors on every page (env FAULTLINE_WATCH)")
	graders := env("FAULTLINE_GRADERS", strconv.Itoa(runtime.NumCPU()))
	defaultGraders, err := strconv.Atoi(graders)
	if err != nil || defaultGraders < 0 {
		return cfg, fmt.Errorf("serve: FAULTLINE_GRADERS=%q: want a whole number of grading processes, 0 to turn grading off", graders)
	}
	flags.IntVar(&cfg.Graders, "graders", defaultGraders, "grading processes run at once, each in its own sandboxed child; 0 turns grading off (env FAULTLINE_GRADERS; default: the number of CPUs)")
	if err := intFlag(flags, &cfg.GradesPerAddress, "grades-per-address", env("FAULTLINE_GRADES_PER_ADDRESS", strconv.Itoa(web.DefaultGradesPerAddress)),
		"gradings one client address may have running or waiting at once (env FAULTLINE_GRADES_PER_ADDRESS)"); err != nil {
		return cfg, err
	}
	if err := intFlag(flags, &cfg.NewIdentities, "new-identities", env("FAULTLINE_NEW_IDENTITIES", strconv.Itoa(defaultNewIdentities)),
		"new identities (cookies whose first form is recorded) one client address may create at once; 0 turns the limit off (env FAULTLINE_NEW_IDENTITIES)"); err != nil {
		return cfg, err
	}
	every := env("FAULTLINE_NEW_IDENTITY_EVERY", defaultNewIdentityEvery.String())
	defaultEvery, err := time.ParseDuration(every)
	if err != nil || defaultEvery <= 0 {
		return cfg, fmt.Errorf("serve: FAULTLINE_NEW_IDENTITY_EVERY=%q: want a positive duration such as 20s", every)
	}
	flags.DurationVar(&cfg.NewIdentityEvery, "new-identity-every", defaultEvery,
		"after -new-identities, one more new identity per client address each this long (env FAULTLINE_NEW_IDENTITY_EVERY)")
	if err := intFlag(flags, &cfg.WriteKiBPerSecond, "write-kib-per-second", env("FAULTLINE_WRITE_KIB_PER_SECOND", strconv.Itoa(int(web.DefaultWriteRate.PerSecond)>>10)),
		"KiB a second one client address may send to be stored, with a burst of 12 s of it; 0 turns the limit off (env FAULTLINE_WRITE_KIB_PER_SECOND)"); err != nil {
		return cfg, err
	}
	ttl := env("FAULTLINE_ROOM_TTL", rooms.DefaultTTL.String())
	defaultTTL, err := time.ParseDuration(ttl)
	if err != nil || defaultTTL <= 0 {
		return cfg, fmt.Errorf("serve: FAULTLINE_ROOM_TTL=%q: want a positive duration such as 4h", ttl)
	}
	flags.DurationVar(&cfg.RoomTTL, "room-ttl", defaultTTL, "how long a live screen's room stays open after it is made (env FAULTLINE_ROOM_TTL)")
	retention := env("FAULTLINE_ROOM_RETENTION", rooms.DefaultRetention.String())
	defaultRetention, err := time.ParseDuration(retention)
	if err != nil || defaultRetention <= 0 {
		return cfg, fmt.Errorf("serve: FAULTLINE_ROOM_RETENTION=%q: want a positive duration such as 720h", retention)
	}
	flags.DurationVar(&cfg.RoomRetention, "room-retention", defaultRetention,
		"how long a room's record (scorecard, replay, its whole log) is kept after the room expires; then it is deleted (env FAULTLINE_ROOM_RETENTION)")
	cfg.Referee.define(flags, env)
	flags.StringVar(&cfg.TrustedProxies, "trusted-proxies", env("FAULTLINE_TRUSTED_PROXIES", ""), "reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed, as addresses or CIDR prefixes separated by commas; empty believes none (env FAULTLINE_TRUSTED_PROXIES)")
	if err := flags.Parse(args); err != nil {
		return cfg, err
	}
	if _, err := clientaddr.Parse(cfg.TrustedProxies); err != nil {
		return cfg, fmt.Errorf("serve: -trusted-proxies: %v", err)
	}
	if cfg.Watch && cfg.Content == "" {
		return cfg, errors.New("serve: -watch needs -content DIR: the content built into the binary never changes")
	}
	if cfg.Graders < 0 {
		return cfg, fmt.Errorf("serve: -graders %d: want 0 (grading off) or more", cfg.Graders)
	}
	if cfg.GradesPerAddress < 1 {
		return cfg, fmt.Errorf("serve: -grades-per-address %d: want 1 or more", cfg.GradesPerAddress)
	}
	if cfg.NewIdentities < 0 {
		return cfg, fmt.Errorf("serve: -new-identities %d: want 0 (no limit) or more", cfg.NewIdentities)
	}
	if cfg.WriteKiBPerSecond < 0 {
		return cfg, fmt.Errorf("serve: -write-kib-per-second %d: want 0 (no limit) or more", cfg.WriteKiBPerSecond)
	}
	if cfg.NewIdentityEvery <= 0 {
		return cfg, fmt.Errorf("serve: -new-identity-every %s: want a positive duration such as 20s", cfg.NewIdentityEvery)
	}
	if cfg.RoomRetention <= 0 {
		return cfg, fmt.Errorf("serve: -room-retention %s: want a positive duration such as 720h", cfg.RoomRetention)
	}
	if flags.NArg() > 0 {
		return cfg, fmt.Errorf("serve: unexpected argument %q", flags.Arg(0))
	}
	return cfg, nil
}

// intFlag defines a whole-number flag whose default comes from the
// environment (def), failing on a default that is not a number.
func intFlag(flags *flag.FlagSet, p *int, name, def, usage string) error {
	n, err := strconv.Atoi(def)
	if err != nil {
		return fmt.Errorf("serve: the default of -%s, %q (from the environment): want a whole number", name, def)
	}
	flags.IntVar(p, name, n, usage)
	return nil
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
	var (
		watcher *problems.Watcher
		cat     *problems.Catalog
		root    = cfg.Content
		err     error
	)
	if cfg.Watch {
		watcher = problems.NewWatcher(cfg.Content, cfg.watchInterval)
		watcher.Options = contentOptions()
		cat, err = watcher.Load()
	} else {
		cat, root, err = loadContent(cfg.Content, content.FS)
	}
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
	// The pages and the rooms read the content through one holder, which
	// the watcher replaces whole on reload.
	current := web.NewContent(cat)
	webCfg := web.Config{Content: current, Store: store, Log: log, Proxies: proxies, GradesPerAddress: cfg.GradesPerAddress}
	_, webCfg.PythonUnavailable = pyenv.Available()
	if cfg.WriteKiBPerSecond > 0 {
		webCfg.WriteRate = web.WriteRate(cfg.WriteKiBPerSecond)
	}
	if cfg.NewIdentities > 0 {
		webCfg.NewIdentities = ratelimit.New(ratelimit.Rate{Burst: float64(cfg.NewIdentities), PerSecond: 1 / cfg.NewIdentityEvery.Seconds()}, nil)
	}
	if cfg.Graders > 0 {
		// Grading children re-execute this binary (gradewire.ChildCommand),
		// at a low CPU priority, the lowest for code that runs long. A spare
		// is kept started per place so a Grade skips the child's start-up.
		// One more place is kept for a newcomer: an address with nothing
		// running whose code has not run long lately. A Grade waits for a place
		// while its expected wait is under gradeMaxWait (a class pressing
		// Grade together all get graded: a warm grade takes about 0.15 s),
		// up to gradeQueuePerPlace jobs a place; past either, it is told
		// the grader is busy and when to try again. Places go fairly
		// between client addresses.
		logConfinement(log)
		pool := grading.NewPool(sandbox.DefaultLimits(), log, cfg.Graders, gradeQueuePerPlace*cfg.Graders)
		pool.SetMaxWait(gradeMaxWait)
		logPython(log)
		// A child that graded an address's job cleanly waits a while for
		// that address's next one, so a second Grade skips a fresh
		// process and heap; it never serves another address.
		pool.Reuse(sandbox.Reuse{})
		pool.SetNewcomerPlace(true)
		pool.KeepWarm()
		defer pool.Close()
		// One pool for every problem: a kit problem's grades take the same
		// places and per-address turns as the refund problem's.
		svc := grading.New(pool, log)
		svc.Referee = cfg.Referee.newReferee(sandbox.DefaultLimits(), cfg.Graders)
		if svc.Referee != nil {
			// The first build of a cache compiles the engine and the
			// kits: do it now, not in a candidate's first Grade.
			go func(r *grading.Referee) {
				start := time.Now()
				if err := r.Warm(ctx); err != nil {
					log.Warn("serve: the native referee is not ready; grades say their verdicts are unconfirmed until a go tool is on PATH", slog.String("error", err.Error()))
					return
				}
				log.Info("serve: the native referee is ready", slog.Duration("took", time.Since(start)))
			}(svc.Referee)
		}
		svc.Disagreements = refereeStoreLog{store}
		webCfg.Grader = &grading.Dispatcher{Service: svc, Content: current}
	}
	// Live screens: their events are in the store; the broker only wakes
	// the streams that follow a room. Closing it ends those streams, so
	// Shutdown is not held up by them (clients reconnect and resume).
	broker, err := openBroker(ctx, cfg.DB, log)
	if err != nil {
		return err
	}
	defer broker.Close()
	roomsCfg := rooms.Config{Store: store, Catalog: current, Publisher: broker, Log: log, TTL: cfg.RoomTTL, Retention: cfg.RoomRetention,
		Creates: ratelimit.New(rooms.DefaultCreates, nil)}
	if g, ok := webCfg.Grader.(rooms.Grader); ok {
		roomsCfg.Grader = g
	}
	roomSvc, err := rooms.New(roomsCfg)
	if err != nil {
		return err
	}
	webCfg.Rooms, webCfg.Broker = roomSvc, broker
	// Rooms past their retention are deleted by every instance's sweep
	// (the store's conditional delete makes that safe); stopped before
	// the store is closed.
	sweepCtx, stopSweeping := context.WithCancel(ctx)
	swept := make(chan struct{})
	defer func() { stopSweeping(); <-swept }()
	go func() { defer close(swept); roomSvc.KeepClean(sweepCtx, rooms.DefaultSweepEvery) }()
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
	log.Info("listening", "url", "http://"+ln.Addr().String(), "db", storage.Redacted(cfg.DB), "content", root,
		"problems", len(cat.Problems), "sets", len(cat.Sets), "screens", len(cat.Screens), "graders", cfg.Graders,
		"content_load", loaded.Sub(started).Round(time.Millisecond),
		"db_open", opened.Sub(loaded).Round(time.Millisecond),
		"startup", time.Since(started).Round(time.Millisecond))
	if watcher != nil {
		// Stopped before run returns, after a reload under way finishes.
		watchCtx, stopWatching := context.WithCancel(ctx)
		watched := make(chan struct{})
		defer func() { stopWatching(); <-watched }()
		go func() {
			defer close(watched)
			watcher.Run(watchCtx, func(cat *problems.Catalog, err error) { contentReloaded(current, root, cat, err, log) })
		}()
		log.Info("watching the content folder for changes", "content", root)
	}
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
	if err := roomSvc.Close(shutdownCtx); err != nil {
		log.Warn("room gradings did not all record their end", "err", err)
	}
	broker.Close()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}

// contentReloaded serves a reload's catalogue, or keeps the last good one
// and shows why the new version was not taken: the diagnostics with their
// files under root, as lint prints them, in the log and on every page.
func contentReloaded(current *web.Content, root string, cat *problems.Catalog, err error, log *slog.Logger) {
	if err == nil {
		current.Replace(cat)
		log.Info("content reloaded", "content", root,
			"problems", len(cat.Problems), "sets", len(cat.Sets), "screens", len(cat.Screens))
		return
	}
	diags, ok := contentDiagnostics(err)
	if !ok {
		diags = []problems.Diagnostic{{File: ".", Message: "the content could not be loaded: " + err.Error()}}
	}
	for i := range diags {
		diags[i].File = filepath.Join(root, filepath.FromSlash(diags[i].File))
	}
	current.Reject(diags)
	log.Warn("the edited content has errors: still serving the last version that loaded", "content", root, "errors", len(diags))
	for _, d := range diags {
		log.Warn("content error", "at", d.String())
	}
}
