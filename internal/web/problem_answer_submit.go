package web

import (
	"github.com/labstack/echo/v4"
)

// problemAnswerSubmit stores the user's answer to a problem, which reveals
// its rubric and model answer. A problem with a timed box gets its timing
// from the box's session; any other answer is stored as a plain one, with
// its word count. An unusable answer re-shows the page with the reason
// beside the form.
func (s *Server) problemAnswerSubmit(c echo.Context) error {
	p, err := s.findProblem(c)
	if err != nil {
		return err
	}
	return s.timedAnswerSubmit(c, problemTarget(p), s.rejectedProblemAnswer(c, p))
}
