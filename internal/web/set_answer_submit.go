package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// setAnswerSubmit stores the user's answer to one question, which reveals
// its model answer and key points; the timed box's script also sends its
// session, and the answer is stored with its timing.
func (s *Server) setAnswerSubmit(c echo.Context) error {
	qs, q, err := s.findQuestion(c)
	if err != nil {
		return err
	}
	// Every question has a timed box; without its script the form posts
	// no session and the answer is stored untimed, as a plain form.
	return s.timedAnswerSubmit(c, questionTarget(qs, q), func(raw, problem string) error {
		page, err := s.setPage(c, qs)
		if err != nil {
			return err
		}
		for i := range page.Questions {
			if page.Questions[i].Question.ID == q.ID {
				page.Questions[i].Draft, page.Questions[i].FormError = raw, problem
			}
		}
		return render(c, http.StatusUnprocessableEntity, setView(s.withTimedAnswerAssets(s.meta(qs.Title)), page))
	})
}
