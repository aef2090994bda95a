package web

import (
	"fmt"

	"github.com/faultline-dev/faultline/internal/problems"
)

// contentIndex is the catalogue prepared for serving: highlighted starter
// code and the filter tags, computed once at start-up.
type contentIndex struct {
	catalog *problems.Catalog
	starter map[string]string // problem slug -> highlighted starter HTML
	tags    problems.Tags     // every tag in use, sorted, for the filters
}

func newContentIndex(cat *problems.Catalog) (*contentIndex, error) {
	ix := &contentIndex{catalog: cat, starter: map[string]string{}, tags: cat.Tags()}
	for _, p := range cat.Problems {
		if p.Code != nil && p.Code.Starter != "" {
			html, err := problems.HighlightCode(p.Code.Language, p.Code.Starter)
			if err != nil {
				return nil, fmt.Errorf("web: starter code of %s: %w", p.Slug, err)
			}
			ix.starter[p.Slug] = html
		}
	}
	return ix, nil
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
