// Package web serves Faultline's pages: the catalogue, problems with hints
// revealed one at a time, question sets and screens. Handlers are Echo
// handlers, one file per action; pages are templ components rendered into a
// buffer before anything is written, so a render error still becomes a clean
// error page. What a user does is kept through a small Store interface.
package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/clientaddr"
	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/practice"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/ratelimit"
	"github.com/faultline-dev/faultline/internal/review"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage"
)

// Store is what the pages read from storage themselves, and the code
// drafts and grade runs grading keeps; *storage.Store satisfies it. The
// store must be a practice.Store too (*storage.Store is): every write of
// practising goes through practice.Service, which owns its rules, and New
// refuses a store without it.
type Store interface {
	Attempt(ctx context.Context, userID string, kind storage.Kind, slug string) (storage.Attempt, error)
	HintReveals(ctx context.Context, attemptID int64) ([]storage.HintReveal, error)
	AnswerReveals(ctx context.Context, attemptID int64) ([]storage.AnswerReveal, error)
	practiceStore
	timedAnswerStore
	review.Store
	Calibration(ctx context.Context, userID string) ([]storage.CalibrationPoint, error)
	codeStore
	catalogueStore
}

// Config is what New needs.
type Config struct {
	Catalog *problems.Catalog
	// Content, when set, is what the pages serve instead of Catalog: the
	// holder a content watcher replaces on reload.
	Content *Content
	Store   Store
	Log     *slog.Logger
	Grader  Grader // nil: grading is off, and the problem page says so
	// Proxies says which peers may tell the client's address and scheme
	// in X-Forwarded-For and X-Forwarded-Proto; nil trusts none.
	Proxies *clientaddr.Resolver
	// GradesPerAddress bounds the gradings running or queued at once for
	// one client address (clientaddr.Key); 0 means DefaultGradesPerAddress.
	GradesPerAddress int
	// NewIdentities, counted per client address, is spent by each new
	// user the app records; nil: no limit.
	NewIdentities ratelimit.Limiter
	// WriteRate is the bytes one client address may send to be stored
	// (DefaultWriteRate in serve); zero: no limit.
	WriteRate ratelimit.Rate
	// Rooms runs live screens, whose streams follow Broker; nil: no
	// rooms (their routes are not there). A grade run's end is announced
	// on Broker too, for streams following it from another instance.
	Rooms  *rooms.Service
	Broker live.Broker
	// GradeLease is how long a grade run stays this instance's without a
	// heartbeat; 0 means DefaultGradeLease.
	GradeLease time.Duration
	// PythonUnavailable says why Python answers cannot be graded on this
	// server (pyenv.Available's reason); "" when they can. The language
	// switch of a problem answered in Python shows Python as unavailable,
	// with the reason, and a Python Grade or Check is refused with it.
	PythonUnavailable string
	// Instance names this server as the owner of the grade runs it leases;
	// "" means grading.InstanceID(), the process's. Tests that run several
	// instances in one process give each its own.
	Instance string
}

// Server is the web application: an Echo instance with every route.
type Server struct {
	pythonWhy string // Config.PythonUnavailable
	echo      *echo.Echo
	content   *Content
	store     Store
	// practice is every use case of practising, over the same store.
	practice *practice.Service
	log      *slog.Logger
	assets   *assetSet
	clock    clockFunc
	grading  *gradingRuns // nil when grading is off
	proxies  *clientaddr.Resolver
	// writes holds each client address's bytes sent to be stored, in
	// buckets of writeRate; nil: no limit.
	writes    ratelimit.Limiter
	writeRate ratelimit.Rate
	// newIdentities limits new users per address; nil: no limit.
	newIdentities ratelimit.Limiter
	rooms         *rooms.Service // nil: no rooms
	broker        live.Broker
	streams       *streamGate // caps on rooms' event streams (room_streams.go)
}

// maxAnswerBytes bounds one submitted answer; a screen answer is a few
// paragraphs, not a novel.
const maxAnswerBytes = 64 << 10

// New builds the application. It fails when it is missing a dependency or
// its static assets cannot be read.
func New(cfg Config) (*Server, error) {
	if (cfg.Catalog == nil && cfg.Content == nil) || cfg.Store == nil || cfg.Log == nil {
		return nil, errors.New("web: New needs a catalogue, a store and a logger")
	}
	content := cfg.Content
	if content == nil {
		content = NewContent(cfg.Catalog)
	}
	assets, err := sharedAssets()
	if err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	s := &Server{echo: e, content: content, store: cfg.Store, log: cfg.Log, assets: assets, proxies: cfg.Proxies,
		newIdentities: cfg.NewIdentities, rooms: cfg.Rooms, broker: cfg.Broker, streams: newStreamGate(), pythonWhy: cfg.PythonUnavailable}
	ps, ok := cfg.Store.(practice.Store)
	if !ok {
		return nil, fmt.Errorf("web: the store (%T) does not keep practice: it needs practice.Store's methods", cfg.Store)
	}
	s.practice = practice.New(ps, s.now)
	s.practice.Answers.KeyPoints = s.keyPointsOf
	s.practice.Answers.Log = s.log
	if s.rooms != nil && s.broker == nil {
		return nil, errors.New("web: rooms need a broker for their streams")
	}
	if cfg.WriteRate.PerSecond > 0 {
		s.writes, s.writeRate = ratelimit.New(cfg.WriteRate, nil), cfg.WriteRate
	}
	e.HTTPErrorHandler = s.handleError
	e.Use(s.locateClient, s.secureHeaders, s.logRequests, s.recoverPanics, s.rejectNUL, s.identify, s.rejectCrossOrigin, s.limitBody, s.budgetWrites)
	if cfg.Grader != nil {
		s.grading = newGradingRuns(cfg.Grader, cfg.Store, cfg.Log)
		s.grading.perAddress = cmp.Or(cfg.GradesPerAddress, DefaultGradesPerAddress)
		s.grading.lease = cmp.Or(cfg.GradeLease, DefaultGradeLease)
		s.grading.instance = cmp.Or(cfg.Instance, s.grading.instance)
		s.grading.shared = cfg.Broker
	}
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	e := s.echo
	e.GET("/", s.home)
	e.GET("/healthz", s.healthz)
	e.GET("/static/highlight.css", s.highlightCSS)
	e.GET("/static/*", s.staticAsset)

	e.GET("/problems/:slug", s.problemShow)
	e.POST("/problems/:slug/hints", s.problemHintReveal)
	e.POST("/problems/:slug/answer", s.problemAnswerSubmit)
	e.POST("/problems/:slug/reveal", s.problemAnswerReveal)

	e.GET("/sets/:slug", s.setShow)
	e.GET("/sets/:slug/rapid", s.setRapidShow)
	e.GET("/sets/:slug/rapid/summary", s.setRapidSummary)
	e.POST("/sets/:slug/rapid/start", s.setRapidStart)
	e.POST("/sets/:slug/questions/:id/answer", s.setAnswerSubmit)
	e.POST("/sets/:slug/questions/:id/reveal", s.setAnswerReveal)
	s.timedAnswerRoutes()

	e.GET("/screens/:slug", s.screenShow)
	e.GET("/screens/:slug/practice/:step", s.screenPractice)
	e.GET("/screens/:slug/practice/summary", s.screenSummary)
	e.POST("/screens/:slug/practice/start", s.screenPracticeStart)
	e.POST("/screens/:slug/practice/finish", s.screenPracticeFinish)
	e.POST("/screens/:slug/practice/:step", s.screenPracticeMove)

	e.GET("/practice", s.practiceShow)
	e.GET("/review", s.reviewShow)
	e.POST("/practice/name", s.practiceName)

	s.codeRoutes()
	s.roomRoutes()
	s.roomRecordRoutes() // replay and scorecard: the interviewer's, open after the room too
}

// ServeHTTP makes the Server an http.Handler. Responses other than static
// files are compressed as they go out (compress.go). HEAD is answered like GET
// (curl -I, uptime checkers): the router sees a GET copy of the request,
// while net/http, which still holds the HEAD original, drops the body.
// Changing the method in place instead made net/http send a body the
// client never asked for.
//
// The request takes the current content version here, before anything
// else, and every handler and the layout read that one (contentOf).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := withContent(r.Context(), s.content.load())
	if r.Method == http.MethodHead {
		r = r.Clone(ctx)
		r.Method = http.MethodGet
	} else {
		r = r.WithContext(ctx)
	}
	if isStaticPath(r.URL.Path) {
		s.echo.ServeHTTP(w, r) // compressed once at start-up, not here
		return
	}
	// Not deferred: after a panic (http.ErrAbortHandler) net/http drops
	// the connection, and a half body must not be finished as if whole.
	cw := newCompressWriter(w, r)
	s.echo.ServeHTTP(cw, r)
	cw.Close()
}

// Echo exposes the router so later features (grading, rooms) can add their
// routes behind the same middleware and error handler.
func (s *Server) Echo() *echo.Echo { return s.echo }

// limitBody caps request bodies: forms here are small.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, maxBody(c.Path()))
		return next(c)
	}
}

// recoverPanics turns a handler panic into a 500 through the error handler,
// logging the panic but never showing it to the user.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = fmt.Errorf("web: panic serving %s %s: %v", c.Request().Method, c.Request().URL.Path, r)
			}
		}()
		return next(c)
	}
}

// logRequests logs one line per request.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err != nil {
			// Let the error handler write the response now, so the status
			// logged is the one the user got.
			c.Error(err)
		}
		req := c.Request()
		s.log.LogAttrs(req.Context(), slog.LevelDebug, "request",
			slog.String("method", req.Method), slog.String("path", req.URL.Path),
			slog.Int("status", c.Response().Status))
		return nil
	}
}
