package problems

import (
	"cmp"
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Folders of the content root; the folder decides the kind.
const (
	problemsDir = "problems"
	setsDir     = "sets"
	screensDir  = "screens"
	problemFile = "problem.md"
)

// validSlug is lower-case letters, digits and single hyphens between them.
var validSlug = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Load reads and checks all content under the root of fsys
// (problems/<slug>/problem.md, sets/<slug>.md, screens/<slug>.md, see
// content/README.md) and renders its Markdown once. When any content is
// invalid it returns a *ContentError with every diagnostic of every file;
// any other error means the loader itself failed.
func Load(fsys fs.FS) (*Catalog, error) { return LoadWith(fsys, Options{}) }

// LoadWith is Load with options: the kits a code problem may name, and
// their scenario checks.
func LoadWith(fsys fs.FS, opt Options) (*Catalog, error) {
	if opt.Kits == nil {
		opt.Kits = DefaultKits()
	}
	l := &loader{
		kits:         opt.Kits,
		fsys:         fsys,
		ds:           &diagnostics{},
		slugs:        map[string]slugUse{},
		problemNames: map[string]bool{},
		setNames:     map[string]bool{},
	}
	l.loadAll()
	if l.err != nil {
		return nil, l.err
	}
	if len(l.ds.list) > 0 {
		return nil, &ContentError{Diagnostics: l.ds.sorted()}
	}
	c := &Catalog{Problems: l.problems, Sets: l.sets}
	for _, s := range l.screens {
		c.Screens = append(c.Screens, s.screen)
	}
	slices.SortFunc(c.Problems, func(a, b *Problem) int { return cmp.Compare(a.Slug, b.Slug) })
	slices.SortFunc(c.Sets, func(a, b *QuestionSet) int { return cmp.Compare(a.Slug, b.Slug) })
	slices.SortFunc(c.Screens, func(a, b *Screen) int { return cmp.Compare(a.Slug, b.Slug) })
	return c, nil
}

// Lint checks the content under the root of fsys and returns every
// diagnostic, or nil when the content is clean. A failure of the loader
// itself is returned as a diagnostic on the content root.
func Lint(fsys fs.FS) []Diagnostic {
	_, err := Load(fsys)
	if err == nil {
		return nil
	}
	var contentErr *ContentError
	if errors.As(err, &contentErr) {
		return contentErr.Diagnostics
	}
	return []Diagnostic{{File: ".", Message: err.Error()}}
}

// slugUse records where a slug was declared, to name both files of a
// duplicate.
type slugUse struct {
	file string
	line int
}

type loadedScreen struct {
	screen *Screen
	file   *contentFile
}

type loader struct {
	kits  []Kit
	fsys  fs.FS
	ds    *diagnostics
	err   error // a system error; content errors go to ds
	slugs map[string]slugUse

	problems []*Problem
	sets     []*QuestionSet
	screens  []loadedScreen

	// Names of every problem folder and set file, loaded or not: a screen
	// naming one whose file is broken gets no second error for it.
	problemNames, setNames map[string]bool

	// unchecked reads code files and scenarios files without checking
	// or parsing them: no Go parse, no kit's scenario check, no scenario
	// list (LoadCode).
	unchecked bool
}

func (l *loader) loadAll() {
	found := false
	for _, dir := range []string{problemsDir, setsDir, screensDir} {
		if info, err := fs.Stat(l.fsys, dir); err == nil && info.IsDir() {
			found = true
		}
	}
	if !found {
		l.ds.add(".", 0, "no content here: expected a problems/, sets/ or screens/ folder")
		return
	}

	for _, entry := range l.readDir(problemsDir) {
		name := path.Join(problemsDir, entry.Name())
		switch {
		case entry.IsDir():
			l.problemNames[entry.Name()] = true
			l.loadProblem(name, entry.Name())
		case strings.HasSuffix(entry.Name(), ".md"):
			l.ds.add(name, 0, "a problem lives in its own folder: move it to problems/<slug>/problem.md")
		}
	}
	for _, entry := range l.readDir(setsDir) {
		if !entry.IsDir() && strings.HasSuffix(entry.Name(), ".md") {
			l.setNames[strings.TrimSuffix(entry.Name(), ".md")] = true
			l.loadSet(path.Join(setsDir, entry.Name()), strings.TrimSuffix(entry.Name(), ".md"))
		}
	}
	for _, entry := range l.readDir(screensDir) {
		if !entry.IsDir() && strings.HasSuffix(entry.Name(), ".md") {
			l.loadScreen(path.Join(screensDir, entry.Name()), strings.TrimSuffix(entry.Name(), ".md"))
		}
	}
	l.checkScreenItems()
	l.checkInterviewOnly()
}

// readDir lists a content folder in name order, leaving out what editors
// and tools put beside the files an author writes; a missing folder is
// empty.
func (l *loader) readDir(dir string) []fs.DirEntry {
	entries, err := fs.ReadDir(l.fsys, dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.ds.add(dir, 0, "cannot read folder: %v", err)
		}
		return nil
	}
	kept := entries[:0]
	for _, e := range entries {
		if !editorLitter(e.Name()) {
			kept = append(kept, e)
		}
	}
	return kept
}

// editorLitter reports whether a name is not the author's content: hidden
// files and folders (.git, Emacs's lock link .#x.md, Vim's .x.md.swp),
// Emacs's autosave #x.md# and backup x.md~. Under -watch they come and go
// while a file is being edited, and reading one as a set or a problem
// would show the author an error about a file they never wrote.
func editorLitter(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#") || strings.HasSuffix(name, "~")
}

// open reads a content file, splits off its front matter and decodes it
// into front. It returns nil when the file cannot be read or has no usable
// front matter (the diagnostic is already recorded).
func (l *loader) open(file string, front any) *builder {
	src, err := fs.ReadFile(l.fsys, file)
	if err != nil {
		l.ds.add(file, 0, "cannot read file: %v", err)
		return nil
	}
	f, ok := splitFrontMatter(file, src, l.ds)
	if !ok {
		return nil
	}
	f.decodeFront(front, l.ds)
	bd := &builder{body: parseBody(f), ds: l.ds}
	bd.rejectTitleHeadings()
	bd.rejectFenceAttributes()
	return bd
}

// finish records a renderer failure and checks and registers the slug.
func (l *loader) finish(bd *builder, slug, name, nameKind string) {
	if bd.err != nil && l.err == nil {
		l.err = fmt.Errorf("problems: %s: %w", bd.file.path, bd.err)
	}
	if !bd.file.frontOK {
		return
	}
	line := bd.file.keyLine("slug")
	switch {
	case slug == "":
		bd.addf(line, "missing slug: add slug: %s to the front matter", name)
		return
	case !validSlug.MatchString(slug):
		bd.addf(line, "bad slug %q: use lower-case letters, digits and single hyphens (like %s)", slug, "async-refund")
	case slug != name:
		bd.addf(line, "slug %q does not match the %s name %q: they must be the same", slug, nameKind, name)
	}
	if first, dup := l.slugs[slug]; dup {
		bd.addf(line, "duplicate slug %q: %s:%d already uses it", slug, first.file, first.line)
		return
	}
	l.slugs[slug] = slugUse{file: bd.file.path, line: line}
}

func (l *loader) loadProblem(dir, name string) {
	file := path.Join(dir, problemFile)
	if _, err := fs.Stat(l.fsys, file); errors.Is(err, fs.ErrNotExist) {
		l.ds.add(dir, 0, "no %s in this problem folder", problemFile)
		return
	}
	var fm problemFront
	bd := l.open(file, &fm)
	if bd == nil {
		return
	}
	p := bd.buildProblem(&fm)
	if fm.Code != nil {
		p.Code = l.loadCode(bd, dir, fm.Code)
	}
	l.finish(bd, fm.Slug, name, "folder")
	l.problems = append(l.problems, p)
}

func (l *loader) loadSet(file, name string) {
	var fm setFront
	bd := l.open(file, &fm)
	if bd == nil {
		return
	}
	s := bd.buildSet(&fm)
	l.finish(bd, fm.Slug, name, "file")
	l.sets = append(l.sets, s)
}

func (l *loader) loadScreen(file, name string) {
	var fm screenFront
	bd := l.open(file, &fm)
	if bd == nil {
		return
	}
	s := bd.buildScreen(&fm)
	l.finish(bd, fm.Slug, name, "file")
	l.screens = append(l.screens, loadedScreen{screen: s, file: bd.file})
}

// codeLanguages are the languages a problem's code may be in: the grader
// runs Go only.
var codeLanguages = []string{"go"}

// loadCode reads a problem's starter and reference files and checks that
// they are Go that parses, so a broken file fails at lint, not in front of
// a candidate.
func (l *loader) loadCode(bd *builder, dir string, fm *codeFront) *Code {
	code := &Code{Language: fm.Language}
	l.resolveKit(bd, dir, fm, code)
	if code.Language == "" {
		code.Language = "go"
	}
	if !slices.Contains(codeLanguages, code.Language) {
		bd.addf(bd.file.keyLine("code", "language"), "unknown code.language %q: only go is supported", fm.Language)
		return code
	}
	code.StarterPath, code.Starter = l.readCode(bd, dir, "starter", fm.Starter)
	code.ReferencePath, code.Reference = l.readCode(bd, dir, "reference", fm.Reference)
	switch {
	case fm.PythonStarter == "" && fm.PythonReference == "":
	case fm.PythonStarter == "" || fm.PythonReference == "":
		key := "python_starter"
		if fm.PythonStarter != "" {
			key = "python_reference"
		}
		bd.addf(bd.file.keyLine("code", key), "code.%s is missing: code.python_starter and code.python_reference come together", key)
	case code.Kit == "":
		bd.addf(bd.file.keyLine("code", "python_starter"), "code.python_starter needs code.kit: only a kit grades Python")
	default:
		code.PythonStarterPath, code.PythonStarter = l.readFile(bd, dir, "python_starter", fm.PythonStarter, ".py")
		code.PythonReferencePath, code.PythonReference = l.readFile(bd, dir, "python_reference", fm.PythonReference, ".py")
	}
	return code
}

// resolveKit checks the kit a problem's code names (code.kit, or code.grader
// as it was spelled before kits) and reads and checks its scenarios file
// when the kit takes one.
func (l *loader) resolveKit(bd *builder, dir string, fm *codeFront, code *Code) {
	key, name := "kit", fm.Kit
	switch {
	case fm.Kit != "" && fm.Grader != "" && fm.Kit != fm.Grader:
		bd.addf(bd.file.keyLine("code", "grader"), "code.kit %q and code.grader %q disagree: code.grader is the old name of code.kit, keep only kit", fm.Kit, fm.Grader)
		return
	case fm.Kit == "" && fm.Grader != "":
		key, name = "grader", fm.Grader
	}
	if name == "" {
		if fm.Scenarios != "" {
			bd.addf(bd.file.keyLine("code", "scenarios"), "code.scenarios needs code.kit: name the kit that reads the file (one of %s)", kitNames(l.kits))
		}
		return
	}
	i := slices.IndexFunc(l.kits, func(k Kit) bool { return k.Name == name })
	if i < 0 {
		bd.addf(bd.file.keyLine("code", key), "unknown code.%s %q: the kits are %s", key, name, kitNames(l.kits))
		return
	}
	kit := l.kits[i]
	code.Kit = kit.Name
	if !kit.Scenarios {
		if fm.Scenarios != "" {
			bd.addf(bd.file.keyLine("code", "scenarios"), "kit %s reads no scenarios file: remove code.scenarios", kit.Name)
		}
		return
	}
	rel := fm.Scenarios
	if strings.TrimSpace(rel) == "" {
		rel = DefaultScenariosFile
	}
	file := path.Join(dir, rel)
	if path.IsAbs(rel) || !strings.HasPrefix(file, dir+"/") {
		bd.addf(bd.file.keyLine("code", "scenarios"), "code.scenarios %q must be a path inside the problem folder %s/", rel, dir)
		return
	}
	data, err := fs.ReadFile(l.fsys, file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			bd.addf(bd.file.keyLine("code", key), "kit %s grades against a scenarios file: %s not found (name another with code.scenarios)", kit.Name, file)
		} else {
			bd.addf(bd.file.keyLine("code", key), "cannot read the scenarios file %s: %v", file, err)
		}
		return
	}
	code.ScenariosPath, code.Scenarios = file, string(data)
	if kit.CheckScenarios != nil && !l.unchecked {
		for _, d := range kit.CheckScenarios(file, data) {
			if d.File == "" {
				d.File = file
			}
			l.ds.list = append(l.ds.list, d)
		}
	}
	if !l.unchecked {
		l.readScenarioList(code)
	}
}

// readCode reads one code file named in the front matter (relative to the
// problem's folder) and reports Go syntax errors on the code file's lines.
func (l *loader) readCode(bd *builder, dir, key, rel string) (file, src string) {
	file, src = l.readFile(bd, dir, key, rel, ".go")
	if file == "" {
		return "", ""
	}
	if l.unchecked {
		return file, src
	}
	if _, err := parser.ParseFile(token.NewFileSet(), file, src, parser.AllErrors|parser.SkipObjectResolution); err != nil {
		var list scanner.ErrorList
		if errors.As(err, &list) {
			// One error a line: after the first, the parser's messages on
			// the same line are mostly echoes of it.
			lastLine := 0
			for _, e := range list {
				if e.Pos.Line != lastLine {
					l.ds.add(file, e.Pos.Line, "Go syntax error: %s", e.Msg)
					lastLine = e.Pos.Line
				}
			}
		} else {
			l.ds.add(file, 0, "Go syntax error: %v", err)
		}
	}
	return file, src
}

// readFile reads one file named by code.key in the front matter (relative
// to the problem's folder), whose name ends in ext; "" when it cannot,
// which the diagnostics say. A Python file's syntax is the grader's to
// check (it needs python3): lint grades references where it can.
func (l *loader) readFile(bd *builder, dir, key, rel, ext string) (file, src string) {
	line := bd.file.keyLine("code", key)
	if strings.TrimSpace(rel) == "" {
		bd.addf(line, "code.%s is missing: name the %s file, relative to the problem folder (for example %s/refund.go)", key, key, key)
		return "", ""
	}
	file = path.Join(dir, rel)
	if path.IsAbs(rel) || !strings.HasPrefix(file, dir+"/") {
		bd.addf(line, "code.%s %q must be a path inside the problem folder %s/", key, rel, dir)
		return "", ""
	}
	if ext == ".py" && !strings.HasSuffix(rel, ext) {
		bd.addf(line, "code.%s %q must be a Python file (%s)", key, rel, ext)
		return "", ""
	}
	data, err := fs.ReadFile(l.fsys, file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			bd.addf(line, "code.%s: file %s not found (looked for %s)", key, rel, file)
		} else {
			bd.addf(line, "code.%s: cannot read %s: %v", key, file, err)
		}
		return "", ""
	}
	return file, string(data)
}

// buildScreen fills a Screen; whether its items name real problems and sets
// is checked once every file is loaded.
func (bd *builder) buildScreen(fm *screenFront) *Screen {
	s := &Screen{
		Slug:    fm.Slug,
		Title:   strings.TrimSpace(fm.Title),
		Summary: strings.TrimSpace(fm.Summary),
		Minutes: fm.Minutes,
		Tags:    tagsOf(fm.Tags),
		Source:  strings.TrimSpace(fm.Source),
		Intro:   bd.markdown(bd.source(chunk{start: 0, end: len(bd.src)})),
		File:    bd.file.path,
	}
	s.InterviewOnly = fm.InterviewOnly
	bd.checkCommon(&fm.commonFront)
	if bd.file.frontOK && len(fm.Items) == 0 {
		bd.addf(bd.file.keyLine("items"), "a screen needs items: a list of - problem: <slug> or - questions: <slug>")
	}
	for i, item := range fm.Items {
		line := bd.file.itemLine("items", i)
		switch {
		case item.Problem == "" && item.Questions == "":
			bd.addf(line, "screen item %d names neither a problem nor questions: set problem: <slug> or questions: <slug>", i+1)
		case item.Problem != "" && item.Questions != "":
			bd.addf(line, "screen item %d names both a problem and questions: one step is one of them; split it into two items", i+1)
		}
		if item.Minutes < 0 {
			bd.addf(bd.file.itemKeyLine("items", i, "minutes"), "screen item %d: minutes must not be negative (got %d)", i+1, item.Minutes)
		}
		s.Items = append(s.Items, ScreenItem{
			Problem:   strings.TrimSpace(item.Problem),
			Questions: strings.TrimSpace(item.Questions),
			Minutes:   item.Minutes,
			Note:      strings.TrimSpace(item.Note),
		})
	}
	return s
}

// checkScreenItems reports screen items that name no loaded problem or set.
func (l *loader) checkScreenItems() {
	problems := maps.Clone(l.problemNames)
	for _, p := range l.problems {
		problems[p.Slug] = true
	}
	sets := maps.Clone(l.setNames)
	for _, s := range l.sets {
		sets[s.Slug] = true
	}
	for _, ls := range l.screens {
		for i, item := range ls.screen.Items {
			switch {
			case item.Problem != "" && !problems[item.Problem]:
				hint := ""
				if sets[item.Problem] {
					hint = fmt.Sprintf(" (%q is a question set: write questions: %s)", item.Problem, item.Problem)
				}
				l.ds.add(ls.file.path, ls.file.itemKeyLine("items", i, "problem"), "screen item %d names unknown problem %q%s", i+1, item.Problem, hint)
			case item.Questions != "" && !sets[item.Questions]:
				hint := ""
				if problems[item.Questions] {
					hint = fmt.Sprintf(" (%q is a problem: write problem: %s)", item.Questions, item.Questions)
				}
				l.ds.add(ls.file.path, ls.file.itemKeyLine("items", i, "questions"), "screen item %d names unknown question set %q%s", i+1, item.Questions, hint)
			}
		}
	}
}

// Problem returns the problem with the given slug. The lookups scan: a
// catalogue holds tens of items, and a scan also works on a Catalog built
// by hand in another package's tests, in any order.
func (c *Catalog) Problem(slug string) (*Problem, bool) {
	if i := slices.IndexFunc(c.Problems, func(p *Problem) bool { return p.Slug == slug }); i >= 0 {
		return c.Problems[i], true
	}
	return nil, false
}

// Set returns the question set with the given slug.
func (c *Catalog) Set(slug string) (*QuestionSet, bool) {
	if i := slices.IndexFunc(c.Sets, func(s *QuestionSet) bool { return s.Slug == slug }); i >= 0 {
		return c.Sets[i], true
	}
	return nil, false
}

// Screen returns the screen with the given slug.
func (c *Catalog) Screen(slug string) (*Screen, bool) {
	if i := slices.IndexFunc(c.Screens, func(s *Screen) bool { return s.Slug == slug }); i >= 0 {
		return c.Screens[i], true
	}
	return nil, false
}

// Tags returns every distinct tag used by any problem, set or screen, by
// kind, each kind sorted: the values of the catalogue's filters.
func (c *Catalog) Tags() Tags {
	var all Tags
	add := func(t Tags) {
		all.Topics = append(all.Topics, t.Topics...)
		all.Companies = append(all.Companies, t.Companies...)
		all.Roles = append(all.Roles, t.Roles...)
	}
	for _, p := range c.Problems {
		add(p.Tags)
	}
	for _, s := range c.Sets {
		add(s.Tags)
	}
	for _, s := range c.Screens {
		add(s.Tags)
	}
	distinct := func(in []string) []string {
		slices.Sort(in)
		return slices.Compact(in)
	}
	return Tags{Topics: distinct(all.Topics), Companies: distinct(all.Companies), Roles: distinct(all.Roles)}
}
