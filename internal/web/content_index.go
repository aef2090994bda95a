package web

import (
	"context"
	"sync/atomic"

	"github.com/faultline-dev/faultline/internal/problems"
)

// contentIndex is one version of the content prepared for serving: the
// catalogue, the filter tags computed from it, and the errors of a later
// edit that did not load, if any. It is never changed once built: a reload
// builds a new one.
type contentIndex struct {
	// catalog is what the public pages serve: the whole catalogue less
	// what is marked interview_only (problems.Catalog.Public), which
	// only live screens (full) use.
	catalog *problems.Catalog
	full    *problems.Catalog
	tags    problems.Tags         // every tag in use, sorted, for the filters
	errors  []problems.Diagnostic // why the newest edit is not served; nil when it is
}

func newContentIndex(cat *problems.Catalog) *contentIndex {
	pub := cat.Public()
	return &contentIndex{catalog: pub, full: cat, tags: pub.Tags()}
}

// Content is the content the pages serve, which a reload replaces whole.
// Each request takes the version current when it arrives and keeps it to
// its end (ServeHTTP), so a reload never changes what a page in flight
// sees, and a swap is one atomic store: no lock is held while pages
// render. It is safe for concurrent use.
type Content struct {
	cur atomic.Pointer[contentIndex]
}

// NewContent serves cat until Replace or Reject.
func NewContent(cat *problems.Catalog) *Content {
	c := &Content{}
	c.cur.Store(newContentIndex(cat))
	return c
}

// Replace serves cat from the next request on, and drops the errors of an
// earlier edit that did not load.
func (c *Content) Replace(cat *problems.Catalog) { c.cur.Store(newContentIndex(cat)) }

// Reject keeps serving the current catalogue and shows errs, an edit's
// diagnostics with the files as an author opens them, in a banner on every
// page until the next Replace.
func (c *Content) Reject(errs []problems.Diagnostic) {
	old := c.cur.Load()
	c.cur.Store(&contentIndex{catalog: old.catalog, full: old.full, tags: old.tags, errors: errs})
}

func (c *Content) load() *contentIndex { return c.cur.Load() }

// Problem, Set and Screen look in the whole content current now,
// interview-only items included, for the work that outlives one request
// (rooms made from a screen, their grading).
func (c *Content) Problem(slug string) (*problems.Problem, bool) {
	return c.load().full.Problem(slug)
}

func (c *Content) Set(slug string) (*problems.QuestionSet, bool) { return c.load().full.Set(slug) }

func (c *Content) Screen(slug string) (*problems.Screen, bool) { return c.load().full.Screen(slug) }

// contentKey holds the request's content version in its context.
type contentKey struct{}

func withContent(ctx context.Context, ci *contentIndex) context.Context {
	return context.WithValue(ctx, contentKey{}, ci)
}

// contentOf is the content version the request took when it arrived, or
// the current one outside a request.
func (s *Server) contentOf(ctx context.Context) *contentIndex {
	if ci, ok := ctx.Value(contentKey{}).(*contentIndex); ok {
		return ci
	}
	return s.content.load()
}

// catalog is the request's public catalogue (contentOf): no interview-only
// item is in it.
func (s *Server) catalog(ctx context.Context) *problems.Catalog { return s.contentOf(ctx).catalog }

// fullCatalog is the request's whole catalogue, for making live screens.
func (s *Server) fullCatalog(ctx context.Context) *problems.Catalog { return s.contentOf(ctx).full }

// contentErrors are the errors the layout's banner shows for the request's
// content version; none outside a request.
func contentErrors(ctx context.Context) []problems.Diagnostic {
	ci, _ := ctx.Value(contentKey{}).(*contentIndex)
	if ci == nil {
		return nil
	}
	return ci.errors
}

// question finds a question of a set by id.
func question(qs *problems.QuestionSet, id string) (*problems.Question, bool) {
	for i := range qs.Questions {
		if qs.Questions[i].ID == id {
			return &qs.Questions[i], true
		}
	}
	return nil, false
}
