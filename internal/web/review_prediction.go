package web

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// predictionField reads the optional "predicted" field of an answer: how
// many of the key points the candidate thinks they covered, said before the
// rubric is shown (issue 29). -1 when it is absent or left blank.
func predictionField(c echo.Context, tg timedTarget) (int, error) {
	raw := strings.TrimSpace(c.Request().PostFormValue("predicted"))
	if raw == "" {
		return -1, nil
	}
	of := len(tg.keyPoints)
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 || n > of || of == 0 {
		return 0, badRequest(fmt.Sprintf("The prediction %s is not a number of key points: %s has %d, so give 0 to %d or leave it blank.",
			quoteForUser(raw), tg.what, of, of))
	}
	return n, nil
}
