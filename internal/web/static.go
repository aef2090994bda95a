package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	assets "github.com/faultline-dev/faultline/web"
)

// highlightCSSName is the URL name of the chroma stylesheet, served from the
// content package rather than from web/static.
const highlightCSSName = "highlight.css"

// assetSet is the static files with a content hash each. Pages link
// /static/NAME?v=HASH, so a file can be cached for a year: a new build with
// a changed file changes the link.
type assetSet struct {
	files map[string][]byte
	hash  map[string]string
}

func newAssetSet() (*assetSet, error) {
	set := &assetSet{files: map[string][]byte{}, hash: map[string]string{}}
	static, err := fs.Sub(assets.Static, "static")
	if err != nil {
		return nil, fmt.Errorf("web: static assets: %w", err)
	}
	err = fs.WalkDir(static, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(static, name)
		if err != nil {
			return err
		}
		set.add(name, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: static assets: %w", err)
	}
	set.add(highlightCSSName, []byte(problems.HighlightCSS()))
	return set, nil
}

func (a *assetSet) add(name string, body []byte) {
	sum := sha256.Sum256(body)
	a.files[name] = body
	a.hash[name] = hex.EncodeToString(sum[:6])
}

// url is the cache-busting link to a static file.
func (a *assetSet) url(name string) string {
	return "/static/" + name + "?v=" + a.hash[name]
}

func (s *Server) staticAsset(c echo.Context) error {
	return s.serveAsset(c, path.Clean(c.Param("*")))
}

func (s *Server) highlightCSS(c echo.Context) error {
	return s.serveAsset(c, highlightCSSName)
}

func (s *Server) serveAsset(c echo.Context, name string) error {
	body, ok := s.assets.files[name]
	if !ok {
		return notFound("There is no file " + name + ".")
	}
	h := c.Response().Header()
	if c.QueryParam("v") == s.assets.hash[name] {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	etag := `"` + s.assets.hash[name] + `"`
	h.Set("ETag", etag)
	if c.Request().Header.Get("If-None-Match") == etag {
		return c.NoContent(http.StatusNotModified)
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return c.Blob(http.StatusOK, ctype, body)
}
