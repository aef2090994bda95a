package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// pageScriptBudget is the limit on all JavaScript a problem page
// loads, compressed: the CodeMirror bundle is most of it.
const pageScriptBudget = 200 * 1000

// gzipSize is the size of body compressed as a server or CDN would (best
// compression, as `gzip -9`).
func gzipSize(t *testing.T, body []byte) int {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}

// TestEditorBundleServed checks that the committed CodeMirror bundle is
// embedded byte for byte and served as JavaScript at its versioned URL.
func TestEditorBundleServed(t *testing.T) {
	disk, err := os.ReadFile("../../web/static/editor.js")
	if err != nil {
		t.Fatalf("the editor bundle is missing (run web/editor/build.sh): %v", err)
	}
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	for _, path := range []string{ts.app.assets.url("editor.js"), "/static/editor.js"} {
		t.Run(path, func(t *testing.T) {
			p := b.get(path)
			if p.status != 200 {
				t.Fatalf("status %d; want 200", p.status)
			}
			ctype := p.header.Get("Content-Type")
			if !strings.HasPrefix(ctype, "text/javascript") && !strings.HasPrefix(ctype, "application/javascript") {
				t.Errorf("Content-Type = %q; want JavaScript", ctype)
			}
			if p.body != string(disk) {
				t.Errorf("served %d bytes; web/static/editor.js has %d", len(p.body), len(disk))
			}
			if !strings.Contains(p.body, "FaultlineEditor") {
				t.Error("the bundle does not define window.FaultlineEditor")
			}
		})
	}
}

var (
	scriptSrc  = regexp.MustCompile(`<script[^>]*\ssrc="/static/([^"?]+)`)
	lazyScript = regexp.MustCompile(`data-merge-src="/static/([^"?]+)`)
)

// TestProblemPageScriptsWithinBudget adds up, compressed, every script the
// code problem's page links, plus the editor bundle whether or not the page
// links it yet, and holds the total to the budget.
func TestProblemPageScriptsWithinBudget(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	b := ts.newBrowser(t)
	p := b.get("/problems/refund-bug")
	if p.status != 200 {
		t.Fatalf("problem page status %d", p.status)
	}
	names := map[string]bool{"editor.js": true}
	for _, m := range scriptSrc.FindAllStringSubmatch(p.body, -1) {
		names[m[1]] = true
	}
	total := 0
	for name := range names {
		body, ok := ts.app.assets.files[name]
		if !ok {
			t.Errorf("the page links /static/%s, which is not embedded", name)
			continue
		}
		size := gzipSize(t, body)
		t.Logf("%s: %d bytes, %d gzip", name, len(body), size)
		total += size
	}
	t.Logf("all scripts: %d bytes gzip (budget %d)", total, pageScriptBudget)
	if total >= pageScriptBudget {
		t.Errorf("the problem page loads %d bytes of gzip-compressed JavaScript; the budget is under %d", total, pageScriptBudget)
	}
	// The comparison view is loaded on first use, not with the page; with
	// it the page still keeps to the budget.
	if names["editor-merge.js"] {
		t.Error("the page links editor-merge.js as a script; it is meant to load on first use")
	}
	m := lazyScript.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatal("the workspace names no comparison bundle (data-merge-src)")
	}
	body, ok := ts.app.assets.files[m[1]]
	if !ok {
		t.Fatalf("data-merge-src names /static/%s, which is not embedded", m[1])
	}
	lazy := gzipSize(t, body)
	t.Logf("%s, loaded on first use: %d bytes, %d gzip; with it: %d gzip", m[1], len(body), lazy, total+lazy)
	if total+lazy >= pageScriptBudget {
		t.Errorf("with the comparison view the page loads %d bytes of gzip-compressed JavaScript; the budget is under %d", total+lazy, pageScriptBudget)
	}
}

// exactVersion is a pinned npm version: no ranges (^, ~, >=, *, x), tags
// or URLs, so `npm ci` and the bundle are reproducible.
var exactVersion = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// TestEditorPackagesPinned checks web/editor/package.json pins every
// dependency exactly and that package-lock.json locks the same versions.
func TestEditorPackagesPinned(t *testing.T) {
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	readJSON(t, "../../web/editor/package.json", &pkg)
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	readJSON(t, "../../web/editor/package-lock.json", &lock)

	pins := map[string]string{}
	for name, v := range pkg.Dependencies {
		pins[name] = v
	}
	for name, v := range pkg.DevDependencies {
		pins[name] = v
	}
	for _, required := range []string{"@codemirror/view", "@codemirror/lang-go", "esbuild", "axe-core"} {
		if _, ok := pins[required]; !ok {
			t.Errorf("package.json does not pin %s", required)
		}
	}
	for name, version := range pins {
		t.Run(name, func(t *testing.T) {
			if !exactVersion.MatchString(version) {
				t.Fatalf("package.json gives %s the version %q; want an exact version such as 1.2.3", name, version)
			}
			locked, ok := lock.Packages["node_modules/"+name]
			if !ok {
				t.Fatalf("package-lock.json does not lock %s", name)
			}
			if locked.Version != version {
				t.Errorf("package-lock.json locks %s at %s; package.json pins %s", name, locked.Version, version)
			}
		})
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestPrecompressedAssetsCurrent: each text file in web/static has its
// brotli form made at the best quality beside it (NAME.br), which
// decompresses to NAME, and the server sends those very bytes to a client
// that takes brotli, not a form of its own.
func TestPrecompressedAssetsCurrent(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	assets := ts.app.assets
	for name := range assets.files {
		if _, ok := assets.best[name]; !ok && name != highlightCSSName && compressible(assetType(name)) {
			t.Errorf("web/static/%s has no %s.br beside it; run go generate ./web", name, name)
		}
	}
	for name, br := range assets.best {
		t.Run(name, func(t *testing.T) {
			if _, ok := assets.files[name]; !ok {
				t.Fatalf("web/static/%s.br has no %s beside it", name, name)
			}
			if !assets.bestFits(name) {
				t.Fatalf("web/static/%s.br does not decompress to %s: run go generate ./web (web/editor/build.sh runs it too)", name, name)
			}
			rec := serve(ts.app, "GET", assets.url(name), map[string]string{"Accept-Encoding": "gzip, deflate, br, zstd"})
			if got := rec.Header().Get("Content-Encoding"); got != codingBrotli {
				t.Fatalf("Content-Encoding = %q; want br", got)
			}
			if !bytes.Equal(rec.Body.Bytes(), br) {
				t.Errorf("served %d bytes of brotli; %s.br has %d", rec.Body.Len(), name, len(br))
			}
		})
	}
	// A stale form is not used: the file is compressed at start-up instead.
	stale := &assetSet{files: map[string][]byte{"a.js": []byte("new")}, best: map[string][]byte{"a.js": assets.best["editor.js"]}}
	if stale.bestFits("a.js") {
		t.Error("a NAME.br of other content counts as NAME's")
	}
	if _, ok := assets.files["editor.js.br"]; ok {
		t.Error("editor.js.br is served as a file of its own")
	}
}

// TestEditorPartsLinked: the URLs editor.js loads its parts from are the
// ones the server versions them at, so each part is cached for a year and a
// new build of a part changes its link.
func TestEditorPartsLinked(t *testing.T) {
	ts := newTestServer(t, testCatalog())
	assets := ts.app.assets
	bundle := string(assets.files["editor.js"])
	for _, part := range []string{"lint", "search", "complete"} {
		name := "editor-" + part + ".js"
		if _, ok := assets.files[name]; !ok {
			t.Errorf("web/static/%s is not embedded", name)
			continue
		}
		if want := `"` + assets.url(name) + `"`; !strings.Contains(bundle, want) {
			t.Errorf("editor.js does not load its %s part from %s; run web/editor/build.sh", part, assets.url(name))
		}
		p := ts.newBrowser(t).get(assets.url(name))
		if p.status != 200 || !strings.Contains(p.body, "FaultlineEditor.parts."+part) {
			t.Errorf("%s: status %d, or it does not register the %s part", name, p.status, part)
		}
	}
	// Only rooms make a shared editor, and they link its part themselves.
	if strings.Contains(bundle, "/static/editor-collab.js") || strings.Contains(bundle, "collab: push failed") {
		t.Error("editor.js carries or loads the shared editor; only room pages need it")
	}
}
