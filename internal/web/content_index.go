package web

import (
	"fmt"
	"slices"

	"github.com/faultline-dev/faultline/internal/problems"
)

// contentIndex is the catalogue prepared for serving: lookups by slug and
// highlighted starter code, computed once at start-up.
type contentIndex struct {
	catalog  *problems.Catalog
	problems map[string]*problems.Problem
	sets     map[string]*problems.QuestionSet
	screens  map[string]*problems.Screen
	starter  map[string]string // problem slug -> highlighted starter HTML
	tags     problems.Tags     // every tag in use, sorted, for the filters
}

func newContentIndex(cat *problems.Catalog) (*contentIndex, error) {
	ix := &contentIndex{
		catalog:  cat,
		problems: map[string]*problems.Problem{},
		sets:     map[string]*problems.QuestionSet{},
		screens:  map[string]*problems.Screen{},
		starter:  map[string]string{},
	}
	var all []problems.Tags
	for _, p := range cat.Problems {
		ix.problems[p.Slug] = p
		all = append(all, p.Tags)
		if p.Code != nil && p.Code.Starter != "" {
			html, err := problems.HighlightCode(p.Code.Language, p.Code.Starter)
			if err != nil {
				return nil, fmt.Errorf("web: starter code of %s: %w", p.Slug, err)
			}
			ix.starter[p.Slug] = html
		}
	}
	for _, qs := range cat.Sets {
		ix.sets[qs.Slug] = qs
		all = append(all, qs.Tags)
	}
	for _, sc := range cat.Screens {
		ix.screens[sc.Slug] = sc
		all = append(all, sc.Tags)
	}
	ix.tags = unionTags(all)
	return ix, nil
}

func unionTags(all []problems.Tags) problems.Tags {
	var out problems.Tags
	for _, t := range all {
		out.Topics = append(out.Topics, t.Topics...)
		out.Companies = append(out.Companies, t.Companies...)
		out.Roles = append(out.Roles, t.Roles...)
	}
	for _, list := range []*[]string{&out.Topics, &out.Companies, &out.Roles} {
		slices.Sort(*list)
		*list = slices.Compact(*list)
	}
	return out
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
