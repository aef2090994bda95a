package web

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/practice"
	"github.com/faultline-dev/faultline/internal/problems"
)

// The clock of a screen practised as a whole starts when the candidate
// presses "Practise this screen", not at a first keystroke: a screen's
// steps open other pages, and the candidate reads before typing anything,
// which an interviewer's clock counts too. The page says so on the button.

// screens is the screen use cases on the server's store and clock.
func (s *Server) screens() *practice.Screens { return s.practice.Screens }

// screenLimit is the screen's overall time from content; 0: it counts up.
func screenLimit(sc *problems.Screen) time.Duration { return time.Duration(sc.Minutes) * time.Minute }

// findScreen is the screen named in the URL, or a 404.
func (s *Server) findScreen(c echo.Context) (*problems.Screen, error) {
	sc, ok := s.catalog(c.Request().Context()).Screen(c.Param("slug"))
	if !ok {
		return nil, notFound("There is no screen called " + c.Param("slug") + ".")
	}
	return sc, nil
}

// screenRunOf reads the user's run of a screen for a page; nil when there
// is none (or no identity yet: browsing creates no user).
func (s *Server) screenRunOf(ctx context.Context, sc *problems.Screen) (*practice.ScreenView, error) {
	userID, ok := UserID(ctx)
	if !ok {
		return nil, nil
	}
	v, err := s.screens().Read(ctx, userID, sc.Slug, len(sc.Items))
	if errors.Is(err, practice.ErrNoScreenRun) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// screenRunUser is the user a screen-run POST is for, admitted as a new
// identity if it is one.
func (s *Server) screenRunUser(c echo.Context) (string, error) {
	userID, err := requireUser(c)
	if err != nil {
		return "", err
	}
	return userID, s.admitIdentity(c, userID)
}

func screenSummaryURL(sc *problems.Screen) string { return "/screens/" + sc.Slug + "/practice/summary" }

// screenClock is the screen's overall clock as a page draws it, and as
// run-clock.js ticks it on from there.
type screenClock struct {
	Down      bool          // counts down from Limit; else up
	Limit     time.Duration // 0 when counting up
	Shown     time.Duration // the time the page shows: left when counting down, used when up
	Running   bool          // the run goes on: the browser ticks it
	Up        bool          // the time ran out
	StepShown time.Duration // time on the current step; only when Step is the page's step
	Step      int           // the step the clock counts; 0 once over
}

func screenClockOf(v *practice.ScreenView) *screenClock {
	if v == nil {
		return nil
	}
	c := &screenClock{Down: v.Run.Limit > 0, Limit: v.Run.Limit, Running: !v.Finished, Up: v.Up, Step: v.Current}
	c.Shown = v.Clock.Used
	if c.Down {
		c.Shown = v.Clock.Remaining
	}
	if v.Current > 0 {
		c.StepShown = v.StepUsed[v.Current-1]
	}
	return c
}

func (c *screenClock) dir() string {
	if c.Down {
		return "down"
	}
	return "up"
}

func (c *screenClock) shownMS() string { return strconv.FormatInt(c.Shown.Milliseconds(), 10) }

func (c *screenClock) stepMS() string { return strconv.FormatInt(c.StepShown.Milliseconds(), 10) }

// text is the clock as drawn: a countdown shows the next whole second up,
// so 0:00 only at the end; time used shows whole seconds passed.
func (c *screenClock) text() string {
	if c.Down {
		return clock((c.Shown + time.Second - 1).Truncate(time.Second))
	}
	return clock(c.Shown.Truncate(time.Second))
}

func (c *screenClock) stepText() string { return clock(c.StepShown.Truncate(time.Second)) }

// usedText says the time a step or a run used, in whole seconds.
func usedText(d time.Duration) string { return clock(d.Truncate(time.Second)) }

// withRunClock adds the overall clock's script and its styles to a page.
func (s *Server) withRunClock(m pageMeta) pageMeta {
	m.CSS = append(m.CSS, s.assets.url("rapid-fire.css"))
	return m.withScripts(s.assets.url("clock-text.js"), s.assets.url("run-clock.js"))
}

// screenStrip is the screen's clock on a page a step of it opened (the
// step's problem, the set's one-at-a-time run), so the candidate sees the
// screen's time where they spend it.
type screenStrip struct {
	Screen *problems.Screen
	Step   int // the step this page is, from 1
	Clock  *screenClock
}

// screenStripFor finds the screen whose run is counting a step that is
// this page's problem or set (step names one of them), if any: the
// candidate came here from practising it. A run whose time ran out on
// that step, and that no move or finish has closed since, still shows,
// saying so: a reload after the deadline must not hide it.
func (s *Server) screenStripFor(ctx context.Context, step problems.ScreenItem) (*screenStrip, error) {
	isStep := func(it problems.ScreenItem) bool {
		return it.Problem == step.Problem && it.Questions == step.Questions
	}
	for _, sc := range s.catalog(ctx).Screens {
		if !slices.ContainsFunc(sc.Items, isStep) {
			continue
		}
		run, err := s.screenRunOf(ctx, sc)
		if err != nil {
			return nil, err
		}
		if run == nil {
			continue
		}
		at := run.Current
		if run.Up && run.Run.EndedAt.IsZero() {
			at = run.Run.Step
		}
		if at < 1 || at > len(sc.Items) || !isStep(sc.Items[at-1]) {
			continue
		}
		return &screenStrip{Screen: sc, Step: at, Clock: screenClockOf(run)}, nil
	}
	return nil, nil
}

// withScreenStrip adds the clock's script and styles to a page that shows
// a screen's clock.
func (s *Server) withScreenStrip(m pageMeta, st *screenStrip) pageMeta {
	if st == nil {
		return m
	}
	return s.withRunClock(m)
}
