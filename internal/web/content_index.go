package web

import (
	"github.com/faultline-dev/faultline/internal/problems"
)

// contentIndex is the catalogue prepared for serving: the filter tags,
// computed once at start-up.
type contentIndex struct {
	catalog *problems.Catalog
	tags    problems.Tags // every tag in use, sorted, for the filters
}

func newContentIndex(cat *problems.Catalog) *contentIndex {
	return &contentIndex{catalog: cat, tags: cat.Tags()}
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
