package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/problems"
	assets "github.com/faultline-dev/faultline/web"
)

// highlightCSSName is the URL name of the chroma stylesheet, served from the
// content package rather than from web/static.
const highlightCSSName = "highlight.css"

// Levels for static files, compressed once per process. On the 430 KB
// editor bundle, measured on this project's machine: brotli 6 with a
// window fitted to the file makes 133.8 KB with 6 MB of scratch memory;
// 9 saves 1.6% more for 37 MB and twice the time, 11 saves 9% for 41 MB
// and seconds of CPU. gzip 9 makes 143.4 KB with 1 MB.
const (
	staticBrotliLevel = 6
	staticGzipLevel   = gzip.BestCompression
)

// brotliWindowFor is the smallest window that holds the whole file: the
// output is the same as with the default 4 MiB one, the scratch memory
// smaller.
func brotliWindowFor(size int) int {
	lgwin := 10 // brotli's minimum
	for lgwin < 24 && 1<<lgwin < size {
		lgwin++
	}
	return lgwin
}

// assetSet is the static files with a content hash each. Pages link
// /static/NAME?v=HASH, so a file can be cached for a year: a new build with
// a changed file changes the link. Each text file is also kept compressed
// with brotli and gzip, made once in the background at start-up; a request
// that arrives before that is done waits for it (a few tenths of a second).
type assetSet struct {
	files map[string][]byte
	hash  map[string]string
	// best holds the brotli forms made at build time at the best quality
	// (NAME.br beside NAME in web/static, internal/web/precompress); they
	// are not files of their own.
	best  map[string][]byte
	ready chan struct{} // closed when encoded is filled
	// encoded holds each file's compressed forms, in codingBrotli,
	// codingGzip order; a form that came out no smaller is left out.
	encoded map[string][]encodedAsset
}

// encodedAsset is one compressed form of a static file.
type encodedAsset struct {
	coding string
	body   []byte
}

// sharedAssets is the one asset set of the process: the files are built
// in and never change, so every Server (and every test) shares the
// compressing.
var sharedAssets = sync.OnceValues(newAssetSet)

func newAssetSet() (*assetSet, error) {
	set := &assetSet{files: map[string][]byte{}, hash: map[string]string{}, best: map[string][]byte{}, ready: make(chan struct{})}
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
		if orig, ok := strings.CutSuffix(name, ".br"); ok {
			set.best[orig] = body
			return nil
		}
		set.add(name, body)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: static assets: %w", err)
	}
	highlight, err := themedHighlightCSS(problems.HighlightCSS())
	if err != nil {
		return nil, err
	}
	set.add(highlightCSSName, []byte(highlight))
	go set.compress()
	return set, nil
}

func (a *assetSet) add(name string, body []byte) {
	sum := sha256.Sum256(body)
	a.files[name] = body
	a.hash[name] = hex.EncodeToString(sum[:6])
}

// compress fills encoded, one file and coding at a time: in parallel the
// peak was higher, for a few tenths of a second sooner.
func (a *assetSet) compress() {
	defer close(a.ready)
	type job struct {
		name, coding string
		out          []byte
	}
	var jobs []*job
	for name := range a.files {
		if !compressible(assetType(name)) {
			continue
		}
		for _, coding := range []string{codingBrotli, codingGzip} {
			jobs = append(jobs, &job{name: name, coding: coding})
		}
	}
	for _, j := range jobs {
		if j.coding == codingBrotli && a.bestFits(j.name) {
			j.out = a.best[j.name]
			continue
		}
		j.out = compressStatic(j.coding, a.files[j.name])
	}
	encoded := map[string][]encodedAsset{}
	for _, j := range jobs {
		if len(j.out) < len(a.files[j.name]) {
			encoded[j.name] = append(encoded[j.name], encodedAsset{coding: j.coding, body: j.out})
		}
	}
	for name, forms := range encoded {
		slices.SortFunc(forms, func(x, y encodedAsset) int { return codingRank(x.coding) - codingRank(y.coding) })
		encoded[name] = forms
	}
	a.encoded = encoded
	// The codecs' scratch memory is garbage now, but the heap would keep
	// it: measured, the server stayed 8 MB bigger for as long as we
	// watched. Handing it back costs one collection, once.
	debug.FreeOSMemory()
}

// bestFits reports whether the brotli form made at build time decompresses
// to the file as built in: a NAME.br left stale by an edit of NAME is not
// used (TestPrecompressedAssetsCurrent fails on it), and the file is
// compressed here instead.
func (a *assetSet) bestFits(name string) bool {
	br, ok := a.best[name]
	if !ok {
		return false
	}
	got, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br)))
	return err == nil && bytes.Equal(got, a.files[name])
}

func codingRank(coding string) int {
	if coding == codingBrotli {
		return 0
	}
	return 1
}

// compressStatic compresses one file; writing to memory cannot fail.
func compressStatic(coding string, body []byte) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	if coding == codingBrotli {
		w = brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: staticBrotliLevel, LGWin: brotliWindowFor(len(body))})
	} else {
		w, _ = gzip.NewWriterLevel(&buf, staticGzipLevel)
	}
	w.Write(body)
	w.Close()
	return buf.Bytes()
}

// form is the file as the client's Accept-Encoding takes it best, with
// its ETag: one per coding, since the bytes differ.
func (a *assetSet) form(name, acceptEncoding string) (body []byte, coding, etag string) {
	<-a.ready
	forms := a.encoded[name]
	offers := make([]string, len(forms))
	for i, f := range forms {
		offers[i] = f.coding
	}
	coding = negotiateCoding(acceptEncoding, offers...)
	for _, f := range forms {
		if f.coding == coding {
			return f.body, coding, `"` + a.hash[name] + "-" + coding + `"`
		}
	}
	return a.files[name], codingIdentity, `"` + a.hash[name] + `"`
}

func assetType(name string) string {
	if ctype := mime.TypeByExtension(path.Ext(name)); ctype != "" {
		return ctype
	}
	return "application/octet-stream"
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
	if _, ok := s.assets.files[name]; !ok {
		return notFound("There is no file " + name + ".")
	}
	req := c.Request()
	h := c.Response().Header()
	if c.QueryParam("v") == s.assets.hash[name] {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	ctype := assetType(name)
	if compressible(ctype) {
		h.Add("Vary", "Accept-Encoding")
	}
	body, coding, etag := s.assets.form(name, req.Header.Get("Accept-Encoding"))
	h.Set("ETag", etag)
	if inm := req.Header.Get("If-None-Match"); inm != "" && noneMatchHits(inm, etag) {
		return c.NoContent(http.StatusNotModified)
	}
	if coding != codingIdentity {
		h.Set("Content-Encoding", coding)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return c.Blob(http.StatusOK, ctype, body)
}

// noneMatchHits reports whether an If-None-Match value names etag, by the
// weak comparison RFC 9110 section 13.1.2 asks for: W/ is ignored on both
// sides, the value may list several tags, and * matches whatever we have.
// A malformed list matches nothing from the malformed entry on, so the
// client gets the file rather than a 304 it did not ask for.
func noneMatchHits(ifNoneMatch, etag string) bool {
	want := strings.TrimPrefix(etag, "W/")
	v := strings.TrimSpace(ifNoneMatch)
	if v == "*" {
		return true
	}
	for v != "" {
		v = strings.TrimLeft(v, " \t,")
		if v == "" {
			break
		}
		v = strings.TrimPrefix(v, "W/")
		if !strings.HasPrefix(v, `"`) {
			return false
		}
		end := strings.IndexByte(v[1:], '"')
		if end < 0 {
			return false
		}
		if v[:end+2] == want {
			return true
		}
		v = v[end+2:]
	}
	return false
}
