package web

import (
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"

	"github.com/labstack/echo/v4"
)

// readForm parses a POSTed form. Every way a body can fail to arrive is
// the client's doing (too large, too slow, cut off) and is answered as a
// 4xx that says which, never as a server error; so is a body that is not a
// form at all, which ParseForm would otherwise read as a form with no
// fields: a handler would then act on fields the client never meant to
// leave empty.
func readForm(c echo.Context) (url.Values, error) {
	req := c.Request()
	if err := checkFormType(req); err != nil {
		return nil, err
	}
	if err := req.ParseForm(); err != nil {
		status, message := bodyProblem(err)
		return nil, echo.NewHTTPError(status, message)
	}
	return req.PostForm, nil
}

// checkFormType refuses a body sent as anything but the urlencoded form a
// browser's form and the pages' scripts (URLSearchParams) send. A POST with
// no body at all is let through: its fields are simply absent.
func checkFormType(req *http.Request) error {
	if req.ContentLength == 0 {
		return nil
	}
	ctype := req.Header.Get(echo.HeaderContentType)
	mt, _, err := mime.ParseMediaType(ctype)
	if err == nil && mt == echo.MIMEApplicationForm {
		return nil
	}
	sent := "with no Content-Type"
	if ctype != "" {
		sent = "as " + quoteForUser(ctype)
	}
	return echo.NewHTTPError(http.StatusUnsupportedMediaType, fmt.Sprintf(
		"This form was sent %s; it must be sent as %s, as a page's form is.", sent, echo.MIMEApplicationForm))
}

// bodyProblem classifies an error from reading a request body into a
// status and a message for the user. The error's own text is not shown: it
// names addresses and internals ("read tcp 127.0.0.1:8080->...").
func bodyProblem(err error) (status int, message string) {
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		return http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"The form is larger than %d KiB. Shorten the answer and send it again.", maxAnswerBytes>>10)
	case errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout():
		return http.StatusRequestTimeout,
			"The form arrived too slowly and the server stopped waiting for it. Check the connection and send it again."
	default:
		return http.StatusBadRequest,
			"The form could not be read: the connection ended before all of it arrived, or it is not a valid form. Send it again."
	}
}

// formValue reads one field of a POSTed form; a missing field is "".
func formValue(c echo.Context, name string) (string, error) {
	form, err := readForm(c)
	if err != nil {
		return "", err
	}
	return form.Get(name), nil
}
