package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/review"
	"github.com/faultline-dev/faultline/internal/storage"
)

// reviewLine is one item of the review queue as the pages show it.
type reviewLine struct {
	Title    string // "Set title: question text", or the problem's title
	URL      string // where its answer box is; "" when the content is gone
	Due      time.Time
	Interval int // days, from the latest rating; 0 before one
	Reps     int
	Lapses   int
	Rated    bool
}

// reviewPage is /review: what is due now, then what comes later, then
// what was answered from content no longer served (never due: there is no
// answer box to open).
type reviewPage struct {
	Due, Later, Gone []reviewLine
}

// reviewSummary is what the catalogue and My practice say of the queue.
type reviewSummary struct {
	Due     int
	Total   int
	NextDue time.Time // the soonest of the later ones; zero if none
	// DueBy counts the due items by catalogue URL ("/problems/x", "/sets/y").
	DueBy map[string]int
}

// markDue sets each catalogue entry's count of items due for review.
func markDue(problems, sets []catalogueEntry, dueBy map[string]int) {
	for _, list := range [][]catalogueEntry{problems, sets} {
		for i := range list {
			list[i].Due = dueBy[list[i].URL]
		}
	}
}

// reviewMeta is a page's frame with the review queue's stylesheet.
func (s *Server) reviewMeta(title string) pageMeta {
	m := s.meta(title)
	m.CSS = append(m.CSS, s.assets.url("review.css"))
	return m
}

// reviewLines names the stored items from the content. An item whose
// problem, set or question is no longer served keeps its slug as a title,
// with no link.
func (s *Server) reviewLines(ctx context.Context, items []storage.ReviewItem) []reviewLine {
	cat := s.catalog(ctx)
	out := make([]reviewLine, 0, len(items))
	for _, it := range items {
		line := reviewLine{Title: it.Slug, Due: it.Due, Interval: it.Interval, Reps: it.Reps, Lapses: it.Lapses,
			Rated: !it.Reviewed.IsZero()}
		switch it.Kind {
		case storage.KindProblem:
			if p, ok := cat.Problem(it.Slug); ok {
				line.Title, line.URL = p.Title, problemAgainURL(p)
			}
		case storage.KindSet:
			id, _ := strings.CutPrefix(it.Scope, "question:")
			line.Title = it.Slug + ": " + id
			if qs, ok := cat.Set(it.Slug); ok {
				line.Title = qs.Title + ": " + id
				for i := range qs.Questions {
					if q := &qs.Questions[i]; q.ID == id {
						line.Title, line.URL = qs.Title+": "+q.Text, questionAgainURL(qs, q)
					}
				}
			}
		}
		out = append(out, line)
	}
	return out
}

// servedOnly leaves out of q the items whose problem, set or question is
// no longer served: nothing can be answered again for them, so they are
// never due and count in no total.
func (s *Server) servedOnly(ctx context.Context, q review.Queue) review.Queue {
	lines := func(items []storage.ReviewItem) []storage.ReviewItem {
		named := s.reviewLines(ctx, items)
		out := items[:0:0]
		for i, it := range items {
			if named[i].URL != "" {
				out = append(out, it)
			}
		}
		return out
	}
	return review.Queue{Due: lines(q.Due), Later: lines(q.Later)}
}

// reviewQueue reads the user's queue; a visitor with no identity yet has
// an empty one.
func (s *Server) reviewQueue(ctx context.Context) (review.Queue, error) {
	userID, ok := UserID(ctx)
	if !ok {
		return review.Queue{}, nil
	}
	return review.Load(ctx, s.store, userID, s.now())
}

// reviewSummaryOf is the short form of the queue for other pages.
func (s *Server) reviewSummaryOf(ctx context.Context) (reviewSummary, error) {
	q, err := s.reviewQueue(ctx)
	if err != nil {
		return reviewSummary{}, err
	}
	q = s.servedOnly(ctx, q)
	sum := reviewSummary{Due: len(q.Due), Total: len(q.Due) + len(q.Later), DueBy: map[string]int{}}
	for _, it := range q.Due {
		switch it.Kind {
		case storage.KindProblem:
			sum.DueBy["/problems/"+it.Slug]++
		case storage.KindSet:
			sum.DueBy["/sets/"+it.Slug]++
		}
	}
	if len(q.Later) > 0 {
		sum.NextDue = q.Later[0].Due
	}
	return sum, nil
}

// reviewShow is /review: the answered questions and problems whose review
// is due, each linking to its answer box, then the rest of the queue.
func (s *Server) reviewShow(c echo.Context) error {
	ctx := c.Request().Context()
	q, err := s.reviewQueue(ctx)
	if err != nil {
		return err
	}
	var page reviewPage
	for _, l := range s.reviewLines(ctx, q.Due) {
		if l.URL == "" {
			page.Gone = append(page.Gone, l)
		} else {
			page.Due = append(page.Due, l)
		}
	}
	for _, l := range s.reviewLines(ctx, q.Later) {
		if l.URL == "" {
			page.Gone = append(page.Gone, l)
		} else {
			page.Later = append(page.Later, l)
		}
	}
	return render(c, http.StatusOK, reviewView(s.reviewMeta("Review"), page))
}

func (l reviewLine) scheduleText() string {
	switch {
	case !l.Rated:
		return "Answered; tick its key points to schedule it by how you did"
	case l.Lapses > 0:
		return fmt.Sprintf("Reviewed %s in a row; latest interval %s; missed %s",
			plural(l.Reps, "time"), plural(l.Interval, "day"), plural(l.Lapses, "time"))
	}
	return fmt.Sprintf("Reviewed %s in a row; latest interval %s", plural(l.Reps, "time"), plural(l.Interval, "day"))
}

// keyPointsOf counts the key points of a problem's or a question's answer
// in the content served now: an answer to something with none has nothing
// to rate it by, so it stays out of the review queue.
func (s *Server) keyPointsOf(ctx context.Context, kind storage.Kind, slug, scope string) int {
	cat := s.catalog(ctx)
	switch kind {
	case storage.KindProblem:
		if p, ok := cat.Problem(slug); ok && scope == storage.ScopeProblem {
			return len(p.StrongAnswer)
		}
	case storage.KindSet:
		id, ok := strings.CutPrefix(scope, "question:")
		if qs, found := cat.Set(slug); ok && found {
			for i := range qs.Questions {
				if qs.Questions[i].ID == id {
					return len(qs.Questions[i].KeyPoints)
				}
			}
		}
	}
	return 0
}
