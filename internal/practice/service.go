package practice

import (
	"context"
	"errors"
	"time"

	"github.com/faultline-dev/faultline/internal/storage"
)

// Store is everything practising keeps: attempts and what was revealed,
// the timed answers, a set's run and a screen's run. *storage.Store has
// it. The web layer reaches these writes only through Service.
type Store interface {
	AnswerStore
	ScreenRunStore
	RunStore
	StartAttempt(ctx context.Context, userID string, kind storage.Kind, slug string) (storage.Attempt, error)
	RevealHint(ctx context.Context, attemptID int64, part, index int) error
	RevealAnswer(ctx context.Context, attemptID int64, scope string, reason storage.Reason) error
	SaveSelfAssessment(ctx context.Context, answerID int64, covered []int, of int, at time.Time) (storage.SelfAssessment, error)
	SetDisplayName(ctx context.Context, userID, name string) (storage.User, error)
}

// RunStore keeps a set run as one timed sequence.
type RunStore interface {
	StartRunClock(ctx context.Context, attemptID int64, limit time.Duration, at time.Time) (storage.RunClock, error)
	RunClock(ctx context.Context, attemptID int64) (storage.RunClock, error)
}

var _ Store = (*storage.Store)(nil)

// Service is every use case of practising over one store and the
// server's clock: the one place their rules live. Handlers parse a
// request, call one of these and draw the outcome.
type Service struct {
	store Store
	now   func() time.Time
	// Answers are the timed answer's use cases, Screens a screen's.
	Answers *Answers
	Screens *Screens
}

// New returns the use cases over store, reading the time from now
// (time.Now when nil).
func New(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now, Answers: NewAnswers(store, now), Screens: NewScreens(store, now)}
}

// Begin is the user's attempt at a problem or set, made on their first
// action. Every write goes through here, so it is where a timed answer
// that ran out while the user was away is stored with its last on-time
// draft (Answers.CloseOverdue), before the write itself.
func (s *Service) Begin(ctx context.Context, userID string, kind storage.Kind, slug string) (storage.Attempt, error) {
	a, err := s.store.StartAttempt(ctx, userID, kind, slug)
	if err != nil {
		return storage.Attempt{}, err
	}
	if err := s.Answers.CloseOverdue(ctx, a.ID); err != nil {
		return storage.Attempt{}, err
	}
	return a, nil
}

// RevealHint shows hint (from 1) of part (from 1); hints come in order, so
// one whose previous hint is not shown yet is storage.ErrHintOrder. The
// caller has checked that the part and the hint exist.
func (s *Service) RevealHint(ctx context.Context, attemptID int64, part, hint int) error {
	return s.store.RevealHint(ctx, attemptID, part, hint)
}

// RevealAnswer shows the answer material of scope to a user who chose to
// look without answering; a reveal already there (by an answer, say)
// keeps its reason.
func (s *Service) RevealAnswer(ctx context.Context, attemptID int64, scope string) error {
	return s.store.RevealAnswer(ctx, attemptID, scope, storage.ReasonChoseToReveal)
}

// StartRun runs a set as one timed sequence from now, limit being the sum
// of its questions' limits. Starting again restarts the clock.
func (s *Service) StartRun(ctx context.Context, attemptID int64, limit time.Duration) (storage.RunClock, error) {
	return s.store.StartRunClock(ctx, attemptID, limit, s.now())
}

// Run is the set's run as one timed sequence at this moment (see Run, the
// function); ok is false when the set is not being run that way.
func (s *Service) Run(ctx context.Context, attemptID int64, items []RunItem) (st RunState, ok bool, err error) {
	rc, err := s.store.RunClock(ctx, attemptID)
	if errors.Is(err, storage.ErrNotFound) {
		return RunState{}, false, nil
	}
	if err != nil {
		return RunState{}, false, err
	}
	return Run(rc, items, s.now()), true, nil
}

// Assess stores which key points (0-based, each below of) the user says
// their answer answerID covered. The answer must be the attempt's, to
// scope; any other is storage.ErrNotFound.
func (s *Service) Assess(ctx context.Context, attemptID int64, scope string, answerID int64, covered []int, of int) (storage.SelfAssessment, error) {
	if _, err := s.Answers.Answer(ctx, attemptID, scope, answerID); err != nil {
		return storage.SelfAssessment{}, err
	}
	return s.store.SaveSelfAssessment(ctx, answerID, covered, of, s.now())
}

// DisplayName is raw as a display name is kept (storage.CheckDisplayName);
// problem says why it cannot be one ("" when it can; "" as a name clears
// it).
func DisplayName(raw string) (name, problem string) { return storage.CheckDisplayName(raw) }

// SetDisplayName sets the user's optional display name from raw, or
// clears it when raw is empty. A name that cannot be used is not stored:
// problem says why, for the form.
func (s *Service) SetDisplayName(ctx context.Context, userID, raw string) (problem string, err error) {
	name, problem := DisplayName(raw)
	if problem != "" {
		return problem, nil
	}
	_, err = s.store.SetDisplayName(ctx, userID, name)
	return "", err
}
