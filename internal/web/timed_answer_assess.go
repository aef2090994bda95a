package web

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/review"
	"github.com/faultline-dev/faultline/internal/storage"
)

// assessmentReply is what the box's script gets back from a saved
// self-assessment.
type assessmentReply struct {
	Answer  int64  `json:"answer"`
	Covered []int  `json:"covered"`
	Of      int    `json:"of"`
	Text    string `json:"text"` // "Saved: N of M key points covered"
}

func assessmentSaved(covered, of int) string {
	return fmt.Sprintf("Saved: %d of %d key points covered", covered, of)
}

// timedAnswerAssess stores which key points the user says their answer
// covered: one checkbox per key point, values are 0-based indexes.
func (s *Server) timedAnswerAssess(c echo.Context) error {
	if wantsJSON(c) {
		return jsonErrors(s.saveAssessment)(c)
	}
	return s.saveAssessment(c)
}

func (s *Server) saveAssessment(c echo.Context) error {
	tg, err := s.findAnswerTarget(c, false)
	if err != nil {
		return err
	}
	if _, err := formValue(c, "answer"); err != nil {
		return err
	}
	form := c.Request().PostForm
	of := len(tg.keyPoints)
	if of == 0 {
		return badRequest("There are no key points to tick for " + tg.what + ".")
	}
	var covered []int
	for _, v := range form["covered"] {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= of {
			return badRequest(fmt.Sprintf("Key point %s does not exist: %s has key points 0 to %d.", quoteForUser(v), tg.what, of-1))
		}
		covered = append(covered, i)
	}
	rawAnswer := form.Get("answer")
	id, err := strconv.ParseInt(rawAnswer, 10, 64)
	if err != nil || id < 1 {
		return badRequest(fmt.Sprintf("The self-assessment names the answer %s, which is not an answer number.", quoteForUser(rawAnswer)))
	}
	missing := notFound(fmt.Sprintf("There is no answer %d of yours to %s.", id, tg.what))
	a, err := s.ownAttempt(c, tg)
	if errors.Is(err, storage.ErrNotFound) {
		return missing
	}
	if err != nil {
		return err
	}
	sa, err := s.practice.Assess(c.Request().Context(), a.ID, tg.scope, id, covered, of)
	if errors.Is(err, storage.ErrNotFound) {
		return missing
	}
	if err != nil {
		return err
	}
	if _, err := review.Assessed(c.Request().Context(), s.store, a.ID, tg.scope, id, len(sa.Covered), sa.Of, s.now()); err != nil {
		return err
	}
	if !wantsJSON(c) {
		return redirectSeeOther(c, tg.anchor)
	}
	return c.JSON(http.StatusOK, assessmentReply{Answer: id, Covered: sa.Covered, Of: sa.Of, Text: assessmentSaved(len(sa.Covered), sa.Of)})
}
