package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// codeLang is a language a code problem can be answered in: Go always,
// Python when the problem's kit grades Python (Code.PythonStarter).
type codeLang struct {
	Name        string // storage.LangGo or storage.LangPython: the form's value
	Label       string // what the switch shows
	Starter     string
	StarterPath string
}

// File is the submission's file name the grader sees: its extension
// routes the job (".py" to the Python runtime).
func (l codeLang) File() string {
	if l.StarterPath == "" {
		return "main.go"
	}
	return path.Base(l.StarterPath)
}

// codeLangsOf is the languages p's code can be written in, Go first.
func codeLangsOf(p *problems.Problem) []codeLang {
	if p.Code == nil {
		return nil
	}
	langs := []codeLang{{Name: storage.LangGo, Label: "Go", Starter: p.Code.Starter, StarterPath: p.Code.StarterPath}}
	if p.Code.PythonStarter != "" {
		langs = append(langs, codeLang{Name: storage.LangPython, Label: "Python", Starter: p.Code.PythonStarter, StarterPath: p.Code.PythonStarterPath})
	}
	return langs
}

// codeLangOf is p's language called name; "" is Go, the language every
// problem's code has. An unknown name, or one p is not answered in, is an
// error that names the value and the languages there are.
func codeLangOf(p *problems.Problem, name string) (codeLang, error) {
	langs := codeLangsOf(p)
	if name == "" {
		return langs[0], nil
	}
	names := make([]string, len(langs))
	for i, l := range langs {
		if l.Name == name {
			return l, nil
		}
		names[i] = strconv.Quote(l.Name)
	}
	return codeLang{}, errUnknownLang{value: name, known: names}
}

type errUnknownLang struct {
	value string
	known []string
}

func (e errUnknownLang) Error() string {
	return "There is no language " + strconv.Quote(e.value) + " for this problem's code; it can be written in " +
		strings.Join(e.known, " or ") + "."
}

// postedLang is the language of the code in a POSTed form (its lang
// field, read after codeValue parsed the form), refused as a 400 that
// names the value before anything is saved: the drafts stay as they were.
func postedLang(c echo.Context, p *problems.Problem) (codeLang, error) {
	l, err := codeLangOf(p, strings.TrimSpace(c.Request().PostForm.Get("lang")))
	if err != nil {
		return l, codeError(c, http.StatusBadRequest, err.Error()+" Nothing was saved; your saved drafts are kept.")
	}
	return l, nil
}

// gradeUnavailable says why code in l cannot be graded on this server,
// "" when it can.
func (s *Server) gradeUnavailable(l codeLang) string {
	if l.Name == storage.LangPython {
		return s.pythonWhy
	}
	return ""
}

// langUnavailable answers a Grade or Check of code in a language this
// server cannot grade: a 503 with the reason, as JSON for the script or as
// a page rendered here (the error handler hides a 5xx's message, and this
// one is for the user).
func (s *Server) langUnavailable(c echo.Context, message string) error {
	if fromScript(c) {
		return c.JSON(http.StatusServiceUnavailable, jsonError{Error: message})
	}
	return render(c, http.StatusServiceUnavailable, errorView(s.meta(errorTitle(http.StatusServiceUnavailable)), http.StatusServiceUnavailable, message))
}

// langChoice is one option of the workspace's language switch.
type langChoice struct {
	Name, Label string
	Selected    bool
	// Why the language cannot be graded here; "" when it can. The option
	// is then disabled, and the reason shown beside it.
	Why string
	URL string // the page in this language, for the switch without a form
}

// langURL is p's page with its code in lang.
func langURL(slug, lang string) string {
	return problemURL(slug) + "?lang=" + url.QueryEscape(lang) + "#code-lang"
}

// workspaceLang is the language the workspace opens in: want when given
// (already checked), else the language of the user's most recently saved
// draft, so a return to the page finds the code last worked on.
func (s *Server) workspaceLang(ctx context.Context, attemptID int64, p *problems.Problem, want string) (codeLang, error) {
	langs := codeLangsOf(p)
	if want != "" || len(langs) == 1 || attemptID == 0 {
		return codeLangOf(p, want)
	}
	best, newest := langs[0], int64(-1)
	for _, l := range langs {
		d, err := s.store.CodeDraftIn(ctx, attemptID, l.Name)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return best, err
		}
		if at := d.SavedAt.UnixMilli(); at > newest {
			best, newest = l, at
		}
	}
	return best, nil
}

// runFile is the file name a replay of run grades its source as: the
// language it was graded in, whatever the problem offers now.
func runFile(p *problems.Problem, run storage.GradeRun) string {
	if run.Language != storage.LangPython {
		return codeLangsOf(p)[0].File()
	}
	if l, err := codeLangOf(p, storage.LangPython); err == nil {
		return l.File()
	}
	return "main.py"
}

// runsInPython reports whether any of runs graded Python: a history then
// lists every run with its language. One list, not one per language: the
// history is the candidate's progress on the problem, whose scenarios and
// invariants are the same in either language, and a run moved out of
// sight by a switch would look lost.
func runsInPython(runs []storage.GradeRun) bool {
	for _, r := range runs {
		if r.Language == storage.LangPython {
			return true
		}
	}
	return false
}

// langLabel is a stored language's name as pages show it.
func langLabel(lang string) string { return storage.LanguageLabel(lang) }
