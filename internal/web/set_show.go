package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/storage"
)

// questionView is one question of a set with what this user did with it.
type questionView struct {
	Number    int
	Question  *problems.Question
	Revealed  bool
	Reveal    storage.AnswerReveal
	Answer    string
	Draft     string
	FormError string
	Box       answerBoxState
}

type setPage struct {
	Set       *problems.QuestionSet
	Tags      tagLinks
	Questions []questionView
	AttemptID int64 // 0: the user has not started the set
	// Rapid is a rapid-fire run's one question: its next step sits right
	// under the answer box, before the rest of the answer material.
	Rapid bool
}

func (s *Server) setShow(c echo.Context) error {
	qs, err := s.findSet(c)
	if err != nil {
		return err
	}
	page, err := s.setPage(c, qs)
	if err != nil {
		return err
	}
	// Opened from the review queue (?again=question): that question's box
	// is ready to answer again.
	if id := c.QueryParam("again"); id != "" {
		for i := range page.Questions {
			if page.Questions[i].Question.ID == id {
				page.Questions[i].Box.Again = true
			}
		}
	}
	return render(c, http.StatusOK, setView(s.withTimedAnswerAssets(s.meta(qs.Title)).withScripts(s.assets.url("in-place.js")), page))
}

func (s *Server) setPage(c echo.Context, qs *problems.QuestionSet) (setPage, error) {
	st, err := s.loadState(c.Request().Context(), storage.KindSet, qs.Slug)
	if err != nil {
		return setPage{}, err
	}
	page := setPage{Set: qs, Tags: tagFilter{}.links(qs.Tags), AttemptID: st.attemptID}
	boxes, err := s.questionBoxes(c.Request().Context(), st, qs)
	if err != nil {
		return setPage{}, err
	}
	for i := range qs.Questions {
		q := &qs.Questions[i]
		scope := storage.ScopeQuestion(q.ID)
		v := questionView{Number: i + 1, Question: q, Answer: st.answers[scope].Body}
		v.Reveal, v.Revealed = st.revealed(scope)
		v.Box = boxes[scope]
		page.Questions = append(page.Questions, v)
	}
	// Every box of a set being run as one timed sequence ends with the
	// run, wherever it is answered: each says so.
	rc, err := s.setRunClock(c.Request().Context(), page)
	if err != nil {
		return setPage{}, err
	}
	for i := range page.Questions {
		page.Questions[i].Box.InRun = rc.Running()
	}
	return page, nil
}

func (s *Server) findSet(c echo.Context) (*problems.QuestionSet, error) {
	qs, ok := s.catalog(c.Request().Context()).Set(c.Param("slug"))
	if !ok {
		return nil, notFound("There is no question set called " + c.Param("slug") + ".")
	}
	return qs, nil
}

// findQuestion is the set and question named in the URL, or a 404.
func (s *Server) findQuestion(c echo.Context) (*problems.QuestionSet, *problems.Question, error) {
	qs, err := s.findSet(c)
	if err != nil {
		return nil, nil, err
	}
	q, ok := question(qs, c.Param("id"))
	if !ok {
		return nil, nil, notFound("The set " + qs.Title + " has no question " + c.Param("id") + ".")
	}
	return qs, q, nil
}

func questionAnchor(qs *problems.QuestionSet, q *problems.Question) string {
	return "/sets/" + qs.Slug + "#q-" + q.ID
}

// questionAgainURL opens the question's answer box ready to answer again:
// the server folds the last answer away above the open form (?again=), and
// the fragment names the box's text, which the browser scrolls to and
// focuses, with or without JavaScript.
func questionAgainURL(qs *problems.QuestionSet, q *problems.Question) string {
	return "/sets/" + qs.Slug + "?again=" + url.QueryEscape(q.ID) + "#answer-" + q.ID
}

// problemAgainURL is questionAgainURL for a problem's written answer: the
// timed box's text and the plain form's share the id.
func problemAgainURL(p *problems.Problem) string {
	return "/problems/" + p.Slug + "?again=1#answer-text"
}
