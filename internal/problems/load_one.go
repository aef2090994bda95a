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

// LoadCode reads what grading problems/<slug>/ needs, its code, without
// checking the problem as LoadProblem does: only its front matter is
// decoded, and its code files and scenarios file are read as they are. No
// Markdown is rendered, no Go is parsed, no kit checks the scenarios
// (opt's CheckScenarios are not called), and the scenarios file is not
// parsed for its list: ScenarioNames and CheckScenarios are left empty
// (ScenarioNames reads the first when it is needed). It is for content
// checked whole already, such as the content built into the server,
// which is linted before it ships: `server grade` then spends its time on
// the grade. The Code is LoadProblem's for valid content, but for those
// two lists. found is false when there is no
// such folder; code is nil when the problem has no code; err is a
// *ContentError for what this reading meets (a broken front matter, a
// folder whose slug differs, a missing file), which a caller shows by
// loading the content whole.
func LoadCode(fsys fs.FS, opt Options, slug string) (code *Code, found bool, err error) {
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
	l := &loader{kits: opt.Kits, fsys: fsys, ds: &diagnostics{}, unchecked: true}
	file := path.Join(dir, problemFile)
	src, err := fs.ReadFile(fsys, file)
	if err != nil {
		l.ds.add(file, 0, "cannot read file: %v", err)
		return nil, true, &ContentError{Diagnostics: l.ds.sorted()}
	}
	var fm problemFront
	if f, ok := splitFrontMatter(file, src, l.ds); ok {
		f.decodeFront(&fm, l.ds)
		if f.frontOK && fm.Slug != slug {
			l.ds.add(file, f.keyLine("slug"), "slug %q does not match the folder name %q: they must be the same", fm.Slug, slug)
		}
		if fm.Code != nil && len(l.ds.list) == 0 {
			code = l.loadCode(&builder{body: &body{file: f}, ds: l.ds}, dir, fm.Code)
		}
	}
	if len(l.ds.list) > 0 {
		return nil, true, &ContentError{Diagnostics: l.ds.sorted()}
	}
	return code, true, nil
}
