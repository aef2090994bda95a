package problems

import (
	"errors"
	"io/fs"
	"path"
)

// LoadProblem reads and checks one problem, problems/<slug>/ under the
// root of fsys, as LoadWith checks it, and nothing else: for a command
// that needs one problem (`server grade`), which then parses and renders
// neither the other problems nor the question sets and screens. What
// only the whole content can show (a duplicate slug, a screen naming an
// unknown problem) is left to Load. found is false when there is no such
// folder; err is a *ContentError when the problem is invalid.
func LoadProblem(fsys fs.FS, opt Options, slug string) (p *Problem, found bool, err error) {
	if !validSlug.MatchString(slug) {
		return nil, false, nil
	}
	dir := path.Join(problemsDir, slug)
	if info, err := fs.Stat(fsys, dir); err != nil || !info.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, false, err
		}
		return nil, false, nil
	}
	if opt.Kits == nil {
		opt.Kits = DefaultKits()
	}
	l := &loader{
		kits:         opt.Kits,
		fsys:         fsys,
		ds:           &diagnostics{},
		slugs:        map[string]slugUse{},
		problemNames: map[string]bool{slug: true},
		setNames:     map[string]bool{},
	}
	l.loadProblem(dir, slug)
	if l.err != nil {
		return nil, true, l.err
	}
	if len(l.ds.list) > 0 {
		return nil, true, &ContentError{Diagnostics: l.ds.sorted()}
	}
	return l.problems[0], true, nil
}
