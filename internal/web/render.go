package web

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render writes component as an HTML page with status. It renders into a
// buffer first: if rendering fails nothing has been written yet, and the
// error handler can still send a clean 500.
func render(c echo.Context, status int, component templ.Component) error {
	buf := bufferPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufferPool.Put(buf)
	if err := component.Render(c.Request().Context(), buf); err != nil {
		return fmt.Errorf("web: render %s: %w", c.Request().URL.Path, err)
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// withScripts adds the scripts at urls to the page, in order, each once: a
// page built by several helpers (a run's clock and the timed box) may ask
// twice for a script they share (clock-text.js), and a second copy would
// run twice.
func (m pageMeta) withScripts(urls ...string) pageMeta {
	for _, u := range urls {
		if !slices.Contains(m.Scripts, u) {
			m.Scripts = append(m.Scripts, u)
		}
	}
	return m
}
