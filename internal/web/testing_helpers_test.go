package web

import (
	"context"
	"errors"
	"io"

	"github.com/labstack/echo/v4"
)

type echoContext = echo.Context

// failingComponent fails halfway through rendering, as a template bug would.
type failingComponent struct{}

func (failingComponent) Render(ctx context.Context, w io.Writer) error {
	io.WriteString(w, "<p>half a page SECRET-HALF-PAGE")
	return errors.New("SECRET-RENDER-DETAIL")
}
