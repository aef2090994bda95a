// Package rooms holds live screens' use cases: an interviewer and a
// candidate in one room over a screen or a problem, with hints and a
// clock under the interviewer's hand, grading both can see, notes and
// scores only the interviewer sees. Handlers in internal/web call these
// and do nothing else with a room.
//
// Everything that happens is an event appended to the room's log in the
// store (events.go lists every kind); what either side sees is a fold of
// that log (views.go), recomputed from the store, so no room state lives
// only in one server's memory. After each append the room's topic is
// published on a broker (internal/live), which wakes the streams that
// follow it on any instance.
//
// The two sides are kept apart by construction: the candidate's view is
// its own type, folded only from the events the store's public reader
// returns (storage.PublicRoomEvents filters interviewer-only kinds in the
// query), and it holds none of the content's interviewer material.
//
// Events are written to be safe with several writers without
// read-then-write transactions: each carries absolute values (hint 2 of
// part 1, item 3, the whole notes text), and the folds ignore one that no
// longer applies (a hint released twice, a pause of a paused clock), so
// two interviewers' tabs pressing the same button at once do no harm.
package rooms

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/ratelimit"
	"github.com/faultline-dev/faultline/internal/storage"
)

// Store is what rooms need from storage; *storage.Store satisfies it.
type Store interface {
	CreateRoom(ctx context.Context, r storage.Room, first storage.NewRoomEvent) (storage.Room, storage.RoomEvent, error)
	Room(ctx context.Context, id string) (storage.Room, error)
	AppendRoomEvents(ctx context.Context, roomID string, at time.Time, evs ...storage.NewRoomEvent) ([]storage.RoomEvent, error)
	EndRoom(ctx context.Context, roomID string, at time.Time, ev storage.NewRoomEvent) (storage.RoomEvent, error)
	RoomEvents(ctx context.Context, roomID string, after int64, limit int, skip ...string) ([]storage.RoomEvent, error)
	PublicRoomEvents(ctx context.Context, roomID string, after int64, limit int, skip ...string) ([]storage.RoomEvent, error)
	AppendDocUpdates(ctx context.Context, roomID, doc string, base int64, at time.Time, actor, kind string, updates []json.RawMessage) ([]storage.RoomEvent, error)
	DocUpdatesSince(ctx context.Context, roomID, doc string, v int64, limit int) ([]storage.RoomEvent, error)
	DocVersion(ctx context.Context, roomID, doc string) (int64, error)
	DeleteRoomsExpiredBy(ctx context.Context, cutoff time.Time, limit int) ([]string, error)
	// A run's lease (run_leases.go).
	LeaseRoomRun(ctx context.Context, roomID string, run int64, owner string, until time.Time) error
	RenewRoomRunLeases(ctx context.Context, owner string, until time.Time) ([]storage.RoomRunLease, error)
	KeepRoomRunLease(ctx context.Context, roomID string, run int64, owner string, until time.Time) (bool, error)
	ReserveRoomRun(ctx context.Context, roomID, owner string, until time.Time, clientKey string, perAddress int) (bool, error)
	EndRoomRunLease(ctx context.Context, roomID string, run int64) error
	RoomRunLeaseOf(ctx context.Context, roomID string) (storage.RoomRunLease, error)
	TakeExpiredRoomRunLease(ctx context.Context, roomID string, run int64, now time.Time) (bool, error)
	ExpiredRoomRunLeases(ctx context.Context, now time.Time, limit int) ([]storage.RoomRunLease, error)
}

// Publisher announces that a room's log reached a seq; live.Broker
// satisfies it.
type Publisher interface {
	Publish(ctx context.Context, topic string, seq int64) error
}

// Topic is the broker topic of a room's log.
func Topic(roomID string) string { return "room/" + roomID }

// Role is who holds a link.
type Role string

// The two roles.
const (
	Interviewer Role = storage.ActorInterviewer
	Candidate   Role = storage.ActorCandidate
)

// DefaultTTL is how long a room stays open when Config gives no TTL: a
// screen is an hour, and this leaves room for running late and for
// writing the notes up after.
const DefaultTTL = 4 * time.Hour

// DefaultCreates is how many rooms one client address may make: ten at
// once (a panel setting up a morning's screens), then one every six
// minutes, so an address cannot fill the store with rooms.
var DefaultCreates = ratelimit.Per(10, time.Hour)

// Limits on what one action may carry. They bound the log's growth per
// event; the web layer's per-address write budget bounds the rate.
const (
	MaxNotesBytes  = 64 << 10
	MaxAnswerBytes = 64 << 10
	MaxScoreNote   = 2 << 10
	MaxScore       = 3
	// keyBytes is each link's secret: 256 random bits, well past the 128
	// asked for, at no cost.
	keyBytes = 32
	// idBytes makes room ids unguessable too, though they are not
	// secrets: a guessed id alone opens nothing.
	idBytes = 16
)

// Recommendations is the four-point scale, weakest first.
var Recommendations = []string{"strong_no", "no", "yes", "strong_yes"}

// Errors the web layer turns into answers. A wrong key and an unknown
// room are the same ErrNotFound, so a guess learns nothing.
var (
	ErrNotFound  = errors.New("rooms: no such room, or the link is wrong")
	ErrExpired   = errors.New("rooms: the room has expired")
	ErrEnded     = errors.New("rooms: the interviewer ended the room")
	ErrForbidden = errors.New("rooms: only the interviewer may do that")
	ErrConflict  = errors.New("rooms: the document has moved on; pull and try again")
)

// InputError is a request the user can correct: Message says what was
// wrong, in words for the page.
type InputError struct{ Message string }

func (e *InputError) Error() string { return "rooms: " + e.Message }

func inputErrorf(format string, args ...any) error {
	return &InputError{Message: fmt.Sprintf(format, args...)}
}

// RateLimitedError refuses a room creation; RetryAfter is when one more
// is allowed.
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rooms: too many rooms from this address; retry in %s", e.RetryAfter.Round(time.Second))
}

// Catalog is the content rooms are made from: a *problems.Catalog, or a
// view that follows the content as it is reloaded.
type Catalog interface {
	Problem(slug string) (*problems.Problem, bool)
	Set(slug string) (*problems.QuestionSet, bool)
	Screen(slug string) (*problems.Screen, bool)
}

// Config is what New needs.
type Config struct {
	Store     Store
	Catalog   Catalog
	Publisher Publisher     // nil: nothing is woken (tests)
	Grader    Grader        // nil: grading is off
	Log       *slog.Logger  // nil: discard
	TTL       time.Duration // 0: DefaultTTL
	// Retention is how long a room is kept after it expires, for its
	// record; then Sweep deletes it. 0: DefaultRetention.
	Retention time.Duration
	// Creates, counted per client address, is spent by each new room;
	// nil: no limit.
	Creates ratelimit.Limiter
	// Cursors, counted per participant, is spent by each cursor report;
	// nil: DefaultCursorReports.
	Cursors ratelimit.Limiter
	// Instance names this server among those on one database, the owner
	// of the runs it grades; "": grading.InstanceID(), the process's.
	Instance string
	// RunLease is how long a run stays its instance's without a heartbeat;
	// 0: DefaultRunLease.
	RunLease time.Duration
	Now      func() time.Time // nil: time.Now
}

// Service runs rooms. It is safe for concurrent use.
type Service struct {
	store   Store
	catalog Catalog
	pub     Publisher
	grader  Grader
	log     *slog.Logger
	ttl     time.Duration
	// retention: see Config.Retention (cleanup.go).
	retention time.Duration
	creates   ratelimit.Limiter
	cursors   ratelimit.Limiter
	docs      *collab.Authority
	replays   *replayCache // replay.go
	now       func() time.Time

	runCtx  context.Context // ends when Close is called
	stopRun context.CancelFunc
	runs    sync.WaitGroup

	instance string        // the owner of this instance's runs' leases
	runLease time.Duration // see DefaultRunLease
	leases   *grading.Leases[runKey]
}

// New builds the service.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Catalog == nil {
		return nil, errors.New("rooms: New needs a store and a catalogue")
	}
	s := &Service{store: cfg.Store, catalog: cfg.Catalog, pub: cfg.Publisher, grader: cfg.Grader, log: cfg.Log,
		ttl: cfg.TTL, retention: cfg.Retention, creates: cfg.Creates, now: cfg.Now}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.ttl <= 0 {
		s.ttl = DefaultTTL
	}
	if s.retention <= 0 {
		s.retention = DefaultRetention
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.cursors = cfg.Cursors; s.cursors == nil {
		s.cursors = ratelimit.New(DefaultCursorReports, s.now)
	}
	s.replays = newReplayCache(replayCacheRooms)
	s.docs = collab.NewAuthority(DocStore{s: s}, collab.Options{Initial: s.initialText})
	s.runCtx, s.stopRun = context.WithCancel(context.Background())
	s.instance, s.runLease = cmp.Or(cfg.Instance, grading.InstanceID()), cmp.Or(cfg.RunLease, DefaultRunLease)
	s.leases = s.newLeases()
	return s, nil
}

// Close stops the gradings still running (each is recorded as stopped)
// and waits for them, or for ctx.
func (s *Service) Close(ctx context.Context) error {
	s.stopRun()
	done := make(chan struct{})
	go func() { s.runs.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("rooms: close: %w", ctx.Err())
	}
}

// Links are a room's two ways in. Only the keys' hashes are kept; the
// candidate's key is derived from the interviewer's (candidateKeyOf), so
// the interviewer, whose browser holds their key, can see both again
// (Service.Links) and no one else can.
type Links struct {
	RoomID         string
	InterviewerKey string
	CandidateKey   string
	ExpiresAt      time.Time
}

// Create makes a room from a screen or a problem (sourceKind
// storage.RoomFromScreen or storage.RoomFromProblem) whose code is in Go.
// clientKey is the client address's limit key.
func (s *Service) Create(ctx context.Context, clientKey, sourceKind, slug string) (Links, error) {
	return s.CreateIn(ctx, clientKey, sourceKind, slug, storage.LangGo)
}

// CreateIn is Create with the room's code language, lang (storage.LangGo
// or storage.LangPython; "" is Go). In a Python room each code step whose
// problem has a Python starter is written and graded in Python; the
// others stay Go. A Python room needs at least one such step.
func (s *Service) CreateIn(ctx context.Context, clientKey, sourceKind, slug, lang string) (Links, error) {
	lang = cmp.Or(lang, storage.LangGo)
	if !storage.ValidLanguage(lang) {
		return Links{}, inputErrorf("there is no language %q; a room's code is in %q or %q", lang, storage.LangGo, storage.LangPython)
	}
	items, err := s.itemsOf(sourceKind, slug, lang)
	if err != nil {
		return Links{}, err
	}
	if lang != storage.LangGo && !anyIn(items, lang) {
		return Links{}, inputErrorf("no code step of %q can be written in Python; make the room in Go", slug)
	}
	if s.creates != nil {
		if ok, retry := s.creates.Take(clientKey, 1); !ok {
			return Links{}, &RateLimitedError{RetryAfter: retry}
		}
	}
	links := Links{RoomID: randomToken(idBytes), InterviewerKey: randomToken(keyBytes)}
	links.CandidateKey = candidateKeyOf(links.InterviewerKey)
	now := s.now()
	links.ExpiresAt = now.Add(s.ttl)
	first, err := newEvent(storage.ActorSystem, KindCreated, Created{SourceKind: sourceKind, SourceSlug: slug, Items: len(items), Language: lang})
	if err != nil {
		return Links{}, err
	}
	_, ev, err := s.store.CreateRoom(ctx, storage.Room{ID: links.RoomID, SourceKind: sourceKind, SourceSlug: slug, Language: lang,
		InterviewerHash: hashKey(links.InterviewerKey), CandidateHash: hashKey(links.CandidateKey),
		CreatedAt: now, ExpiresAt: links.ExpiresAt}, first)
	if err != nil {
		return Links{}, err
	}
	s.publish(ctx, links.RoomID, ev.Seq)
	return links, nil
}

// candidateKeyOf derives the candidate's key from the interviewer's: an
// HMAC, so the candidate's key reveals nothing of the interviewer's, and
// 256 bits like a random key.
func candidateKeyOf(interviewerKey string) string {
	m := hmac.New(sha256.New, []byte(interviewerKey))
	m.Write([]byte("faultline room: the candidate's link"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Links gives the interviewer the room's two links again; key is the
// interviewer's own, which a's holder presented. A room made before keys
// were derived has no candidate key to give: CandidateKey is then "".
func (s *Service) Links(a Access, key string) (Links, error) {
	if err := a.mustBeInterviewer(); err != nil {
		return Links{}, err
	}
	if subtle.ConstantTimeCompare(hashKey(key), a.Room.InterviewerHash) != 1 {
		return Links{}, ErrNotFound
	}
	l := Links{RoomID: a.Room.ID, InterviewerKey: key, ExpiresAt: a.Room.ExpiresAt}
	if ck := candidateKeyOf(key); subtle.ConstantTimeCompare(hashKey(ck), a.Room.CandidateHash) == 1 {
		l.CandidateKey = ck
	}
	return l, nil
}

// Access is an authenticated holder of a link: the room as it was when
// the link was checked, and the role the link gives.
type Access struct {
	Room  storage.Room
	Role  Role
	Items []Item
}

// Authenticate checks a link's key against the room. The key is compared
// with both stored hashes in constant time, both always, so neither the
// comparison's time nor which hash matched leaks through timing. An
// expired or ended room is refused after the key is known good, so only
// a holder of a link learns that.
func (s *Service) Authenticate(ctx context.Context, roomID, key string) (Access, error) {
	if roomID == "" || key == "" || len(key) > 128 || len(roomID) > 64 {
		return Access{}, ErrNotFound
	}
	r, err := s.store.Room(ctx, roomID)
	if errors.Is(err, storage.ErrNotFound) {
		return Access{}, ErrNotFound
	}
	if err != nil {
		return Access{}, err
	}
	h := hashKey(key)
	isInterviewer := subtle.ConstantTimeCompare(h, r.InterviewerHash)
	isCandidate := subtle.ConstantTimeCompare(h, r.CandidateHash)
	var role Role
	switch {
	case isInterviewer == 1:
		role = Interviewer
	case isCandidate == 1:
		role = Candidate
	default:
		return Access{}, ErrNotFound
	}
	items, err := s.itemsOf(r.SourceKind, r.SourceSlug, r.Language)
	if err != nil {
		// The content the room was made from is gone (a redeploy
		// removed it): the system's problem, not the user's.
		return Access{}, fmt.Errorf("rooms: room %s: %w", r.ID, err)
	}
	// Refused with the access filled in: what reads a closed room (the
	// scorecard, replay) may still let its interviewer in.
	if !r.EndedAt.IsZero() {
		return Access{Room: r, Role: role, Items: items}, ErrEnded
	}
	if !s.now().Before(r.ExpiresAt) {
		return Access{Room: r, Role: role, Items: items}, ErrExpired
	}
	return Access{Room: r, Role: role, Items: items}, nil
}

// OpenFor is how long the room a grants access to stays open, by the
// service's clock: a stream of the room ends then.
func (s *Service) OpenFor(a Access) time.Duration { return a.Room.ExpiresAt.Sub(s.now()) }

func hashKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

func randomToken(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Item is one step of a room: a problem, or one question of a set. It
// holds the content whole, interviewer material included: only the
// interviewer's view reads it directly.
type Item struct {
	Index    int
	Problem  *problems.Problem     // set for a problem step
	Set      *problems.QuestionSet // set, with Question, for a question step
	Question *problems.Question
	Limit    time.Duration // the clock's starting limit
	Script   string        // the screen's note for this step: the interviewer's
	// Language is what the step's code is written and graded in: the
	// room's language when the problem has a starter in it, else Go
	// (storage.LangGo or storage.LangPython; "" for a step without code).
	Language string
}

// itemLanguage is the language p's code is written in in a room whose
// language is lang: Python only where p has a Python starter.
func itemLanguage(p *problems.Problem, lang string) string {
	switch {
	case p == nil || p.Code == nil:
		return ""
	case lang == storage.LangPython && p.Code.PythonStarter != "":
		return storage.LangPython
	}
	return storage.LangGo
}

// starterOf is the code an item's shared document starts from (version 0) in
// lang, its language: the document, its replay and the candidate's page
// all start from this one text.
func starterOf(it Item, lang string) string {
	if !it.HasCode() {
		return ""
	}
	if lang == storage.LangPython && it.Problem.Code.PythonStarter != "" {
		return it.Problem.Code.PythonStarter
	}
	return it.Problem.Code.Starter
}

// Starter is the code its shared document starts from.
func (it Item) Starter() string { return starterOf(it, it.Language) }

// File is the submission's file name the grader is sent for its code:
// its extension routes the job (".py" to the Python runtime, where the
// native referee is not used).
func (it Item) File() string {
	if it.Language != storage.LangPython {
		return ""
	}
	if p := it.Problem.Code.PythonStarterPath; p != "" {
		return path.Base(p)
	}
	return "main.py"
}

// anyIn reports whether some step of items has code in lang.
func anyIn(items []Item, lang string) bool {
	for _, it := range items {
		if it.Language == lang {
			return true
		}
	}
	return false
}

// Title names the item.
func (it Item) Title() string {
	if it.Problem != nil {
		return it.Problem.Title
	}
	return it.Question.Text
}

// HasCode reports whether the item has code in the shared editor.
func (it Item) HasCode() bool { return it.Problem != nil && it.Problem.Code != nil }

// hints lists the item's hints in release order: part by part.
func (it Item) hints() []HintRef {
	if it.Problem == nil {
		return nil
	}
	var out []HintRef
	for _, p := range it.Problem.Parts {
		for i := range p.Hints {
			out = append(out, HintRef{Part: p.Number, Index: i})
		}
	}
	return out
}

// HintRef names a hint: index Index (from 0) of part Part.
type HintRef struct{ Part, Index int }

// itemsOf expands a room's source into its steps: a screen's question set
// becomes one step per question, so "next item" walks the questions.
// Each code step's Language is what it is written in in a room in lang.
func (s *Service) itemsOf(kind, slug, lang string) ([]Item, error) {
	var items []Item
	addProblem := func(slug string, minutes int, note string) error {
		p, ok := s.catalog.Problem(slug)
		if !ok {
			return inputErrorf("there is no problem %q", slug)
		}
		if minutes == 0 {
			minutes = p.Minutes
		}
		items = append(items, Item{Index: len(items), Problem: p, Limit: time.Duration(max(minutes, 1)) * time.Minute, Script: note,
			Language: itemLanguage(p, lang)})
		return nil
	}
	switch kind {
	case storage.RoomFromProblem:
		if err := addProblem(slug, 0, ""); err != nil {
			return nil, err
		}
	case storage.RoomFromScreen:
		sc, ok := s.catalog.Screen(slug)
		if !ok {
			return nil, inputErrorf("there is no screen %q", slug)
		}
		for _, si := range sc.Items {
			switch {
			case si.Problem != "":
				if err := addProblem(si.Problem, si.Minutes, si.Note); err != nil {
					return nil, err
				}
			case si.Questions != "":
				set, ok := s.catalog.Set(si.Questions)
				if !ok {
					return nil, inputErrorf("there is no question set %q", si.Questions)
				}
				for qi := range set.Questions {
					q := &set.Questions[qi]
					items = append(items, Item{Index: len(items), Set: set, Question: q,
						Limit: max(q.TimeLimit, time.Minute), Script: si.Note})
				}
			}
		}
		if len(items) == 0 {
			return nil, inputErrorf("screen %q has no steps", slug)
		}
	default:
		return nil, inputErrorf("a room is made from a screen or a problem, not %q", kind)
	}
	return items, nil
}

// Screen returns the screen a room was made from, for its script; nil
// for a room made from one problem.
func (s *Service) Screen(a Access) *problems.Screen {
	if a.Room.SourceKind != storage.RoomFromScreen {
		return nil
	}
	sc, _ := s.catalog.Screen(a.Room.SourceSlug)
	return sc
}

// append appends evs as the holder of a, then wakes the room's streams.
func (s *Service) append(ctx context.Context, a Access, evs ...storage.NewRoomEvent) ([]storage.RoomEvent, error) {
	out, err := s.store.AppendRoomEvents(ctx, a.Room.ID, s.now(), evs...)
	if err != nil {
		return nil, s.closedErr(ctx, a.Room.ID, err)
	}
	s.publish(ctx, a.Room.ID, out[len(out)-1].Seq)
	return out, nil
}

// closedErr turns the store's refusal into the reason a user can read:
// the access was checked before the room ended or expired, so the room is
// read again to say which.
func (s *Service) closedErr(ctx context.Context, roomID string, err error) error {
	switch {
	case errors.Is(err, storage.ErrRoomClosed):
		if r, rerr := s.store.Room(ctx, roomID); rerr == nil && !r.EndedAt.IsZero() {
			return ErrEnded
		}
		return ErrExpired
	case errors.Is(err, storage.ErrNotFound):
		return ErrNotFound
	}
	return err
}

func (s *Service) publish(ctx context.Context, roomID string, seq int64) {
	if s.pub == nil {
		return
	}
	// A lost notification delays a stream until its next wake-up or
	// reconnect; it loses nothing, since the event is in the store.
	if err := s.pub.Publish(context.WithoutCancel(ctx), Topic(roomID), seq); err != nil {
		s.log.Warn("rooms: publishing an event failed", slog.String("room", roomID), slog.Int64("seq", seq), slog.Any("err", err))
	}
}

func (a Access) mustBeInterviewer() error {
	if a.Role != Interviewer {
		return ErrForbidden
	}
	return nil
}

func (a Access) actor() string { return string(a.Role) }

// cleanText refuses text past max bytes or that is not UTF-8.
func cleanText(what, text string, maxBytes int) (string, error) {
	if len(text) > maxBytes {
		return "", inputErrorf("%s is %d KiB; at most %d KiB is kept", what, (len(text)+1023)/1024, maxBytes/1024)
	}
	if !utf8.ValidString(text) {
		return "", inputErrorf("%s is not valid UTF-8 text", what)
	}
	return strings.ReplaceAll(text, "\r\n", "\n"), nil
}
