package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/faultline-dev/faultline/content"
)

// Limits of the harness. A step that waits longer than these is broken, not
// slow: the tests would rather fail with a message than hang.
const (
	defaultTestTimeout = 60 * time.Second // one test's browser work
	serverStartTimeout = 30 * time.Second // from exec to /healthz answering
	browserStartLimit  = 60 * time.Second // from exec to the first tab
	defaultWaitTimeout = 15 * time.Second // waitFor and waitUntil
)

// Paths and sources found by TestMain. They are written once before m.Run
// and only read by the tests.
var (
	serverBinary string // the faultline binary, built without -race
	chromiumPath string // Debian's chromium
	axeSource    string // the text of axe.min.js
	notReady     string // why the browser tests cannot run here; empty when they can
	scratchDir   string // TestMain's temporary folder (binary, browser profile)
)

func TestMain(m *testing.M) { os.Exit(runTests(m)) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "faultline-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	scratchDir = dir

	notReady = findPrerequisites()
	if notReady != "" && os.Getenv("CI") != "" {
		fmt.Fprintf(os.Stderr, "e2e: %s\ne2e: CI is set, so a missing tool is a failure, not a skip\n", notReady)
		return 1
	}
	switch {
	case notReady != "":
	case os.Getenv("FAULTLINE_SERVER_BINARY") != "":
		// A binary built elsewhere, e.g. from a clean checkout while the
		// working tree does not build.
		serverBinary = os.Getenv("FAULTLINE_SERVER_BINARY")
	default:
		built := time.Now()
		if serverBinary, err = buildServer(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "e2e: built the server in %v\n", time.Since(built).Round(time.Millisecond))
	}
	code := m.Run()
	if d, ok := stopSharedBrowser(); ok {
		fmt.Fprintf(os.Stderr, "e2e: browser start-up took %v\n", d.Round(time.Millisecond))
	}
	return code
}

// findPrerequisites locates Chromium and axe-core, and says what to install
// when one is missing.
func findPrerequisites() string {
	var missing []string
	chromiumPath = "/usr/bin/chromium"
	if _, err := os.Stat(chromiumPath); err != nil {
		if p, err := exec.LookPath("chromium"); err == nil {
			chromiumPath = p
		} else {
			chromiumPath = ""
			missing = append(missing, "Chromium is not installed (apt-get install chromium)")
		}
	}
	axePath, err := findAxe()
	if err == nil {
		var src []byte
		if src, err = os.ReadFile(axePath); err == nil {
			axeSource = string(src)
		}
	}
	if err != nil {
		missing = append(missing, fmt.Sprintf("axe-core is missing (run `npm ci` in web/editor, or set FAULTLINE_AXE to an axe.min.js): %v", err))
	}
	if len(missing) == 0 {
		return ""
	}
	return "browser tests cannot run: " + strings.Join(missing, "; ")
}

// findAxe returns FAULTLINE_AXE when set, else the copy npm installs for the
// editor bundle's project.
func findAxe() (string, error) {
	if p := os.Getenv("FAULTLINE_AXE"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("FAULTLINE_AXE: %w", err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "web", "editor", "node_modules", "axe-core", "axe.min.js")
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return p, nil
}

// moduleRoot is the folder of go.mod; the tests run in internal/e2e.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("e2e: go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("e2e: not inside the faultline module")
	}
	return filepath.Dir(gomod), nil
}

// buildServer builds cmd/server without -race even when the tests run with
// it: serve re-executes its own binary as the grading child, and a race
// build of yaegi is several times slower and bigger than the real thing.
func buildServer(dir string) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "faultline")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/server")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("e2e: go build ./cmd/server: %w\n%s", err, out)
	}
	return bin, nil
}

// requireBrowser skips the test when Chromium or axe-core is missing (CI
// never gets here: TestMain fails first).
func requireBrowser(t testing.TB) {
	t.Helper()
	if notReady != "" {
		t.Skip(notReady)
	}
}

// app is one running faultline server with its own database and content.
type app struct {
	URL     string // base URL, e.g. http://127.0.0.1:41234, no trailing slash
	DB      string // the SQLite file
	Content string // the content folder it serves
	log     *serverLog
	pid     int // the server's, which leads its process group
}

// url is the absolute URL of a path on the app.
func (a *app) url(path string) string { return a.URL + path }

// appOption changes how startApp prepares the app.
type appOption func(*appSetup)

type appSetup struct {
	files map[string]string // content-relative path -> text
	args  []string          // more serve flags
}

// withServeFlags adds flags to the server's command line.
func withServeFlags(args ...string) appOption {
	return func(s *appSetup) { s.args = append(s.args, args...) }
}

// withContentFile adds a file to the app's content folder, or replaces a
// shipped one; path is relative to the content root, e.g.
// "sets/short-timer.md". A question set with `### Time limit` `5s` lets a
// test see expiry without waiting two minutes.
func withContentFile(path, text string) appOption {
	return func(s *appSetup) { s.files[path] = text }
}

// startApp starts the server binary on a free port with a fresh database and
// a copy of the shipped content (plus any files the options add), and waits
// until /healthz answers. The process group is killed when the test ends; the
// server's log is added to the test's output if the test failed.
func startApp(t *testing.T, opts ...appOption) *app {
	t.Helper()
	requireBrowser(t)
	setup := appSetup{files: map[string]string{}}
	for _, o := range opts {
		o(&setup)
	}
	dir := t.TempDir()
	contentDir := filepath.Join(dir, "content")
	if err := os.CopyFS(contentDir, content.FS); err != nil {
		t.Fatalf("e2e: copy the shipped content: %v", err)
	}
	for path, text := range setup.files {
		full := filepath.Join(contentDir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := &app{DB: filepath.Join(dir, "data", "faultline.db"), Content: contentDir, log: newServerLog()}
	// Without the native referee: its first build of a cache takes a
	// minute, past gradeWait (internal/web and cmd/server test it).
	cmd := exec.Command(serverBinary, append([]string{"serve", "-addr", "127.0.0.1:0", "-db", a.DB, "-content", contentDir, "-referee=false"}, setup.args...)...)
	cmd.Stdout = a.log
	cmd.Stderr = a.log
	// Its own process group, so the cleanup also ends grading children;
	// and it dies with the test binary, so a run killed midway (a timeout,
	// ^C) leaves no server behind (its grading children die with it).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("e2e: start the server: %v", err)
	}
	a.pid = cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		if t.Failed() {
			t.Logf("server log:\n%s", a.log.String())
		}
	})

	select {
	case a.URL = <-a.log.url:
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("e2e: the server exited before listening (%v); its log:\n%s", err, a.log.String())
	case <-time.After(serverStartTimeout):
		t.Fatalf("e2e: the server logged no url= line in %v; its log:\n%s", serverStartTimeout, a.log.String())
	}
	waitHealthy(t, a)
	return a
}

// waitHealthy polls /healthz until it answers 200.
func waitHealthy(t *testing.T, a *app) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(serverStartTimeout)
	for {
		resp, err := client.Get(a.url("/healthz"))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		if time.Now().After(deadline) {
			t.Fatalf("e2e: %s/healthz did not answer 200 in %v: %v", a.URL, serverStartTimeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serverLog keeps the server's output and spots the url= attribute of its
// "listening" line.
type serverLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	found bool
	url   chan string
}

func newServerLog() *serverLog { return &serverLog{url: make(chan string, 1)} }

var listeningURL = regexp.MustCompile(`url=(http://[^\s"]+)\s`)

func (l *serverLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if !l.found {
		if m := listeningURL.FindSubmatch(l.buf.Bytes()); m != nil {
			l.found = true
			l.url <- string(m[1])
		}
	}
	return len(p), nil
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// sharedBrowser is one Chromium for the whole test binary: starting one
// costs far more than a tab. Each test gets its own browser context (its own
// cookies and storage, like a private window), so tests cannot see each
// other's identity cookie even though every app listens on 127.0.0.1.
var sharedBrowser struct {
	once    sync.Once
	ctx     context.Context // has run once: the browser is up
	stop    func()
	startup time.Duration
	err     error
}

// browserFlags are the Chromium flags of every test browser. profile is a
// fresh user-data-dir.
func browserFlags(profile string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests may run as root, where the sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	)
}

// startBrowser starts a Chromium and opens its first tab. The returned
// context is not bound to any deadline: a deadline on the first run would
// end the browser with it.
func startBrowser(profile string) (ctx context.Context, stop func(), startup time.Duration, err error) {
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), browserFlags(profile)...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	stop = func() { cancelBrowser(); cancelAlloc() }
	watchdog := time.AfterFunc(browserStartLimit, stop)
	started := time.Now()
	err = chromedp.Do(browserCtx)
	startup = time.Since(started)
	if !watchdog.Stop() && err == nil {
		err = fmt.Errorf("did not start in %v", browserStartLimit)
	}
	if err != nil {
		stop()
		return nil, nil, startup, fmt.Errorf("e2e: start chromium (%s): %w", chromiumPath, err)
	}
	return browserCtx, stop, startup, nil
}

func stopSharedBrowser() (startup time.Duration, started bool) {
	if sharedBrowser.stop == nil {
		return 0, false
	}
	sharedBrowser.stop()
	return sharedBrowser.startup, true
}

// browserOption changes newBrowser's defaults.
type browserOption func(*browserSetup)

type browserSetup struct{ timeout time.Duration }

// withTimeout gives the test's browser work longer than the default 60 s,
// for grading runs.
func withTimeout(d time.Duration) browserOption {
	return func(s *browserSetup) { s.timeout = d }
}

// appKey finds the app of a browser context, for visit.
type appKey struct{}

// pageLog collects what the page wrote to the console and the exceptions it
// did not catch.
type pageLog struct {
	mu         sync.Mutex
	lines      []string
	exceptions []string
}

type pageLogKey struct{}

// newBrowser opens a fresh tab, in a fresh browser context, on the shared
// browser, for a test of a; the returned context ends after 60 s (or the
// withTimeout value) and when the test ends. Console output and uncaught
// exceptions of the page are logged at the end of the test.
func newBrowser(t *testing.T, a *app, opts ...browserOption) context.Context {
	t.Helper()
	requireBrowser(t)
	setup := browserSetup{timeout: defaultTestTimeout}
	for _, o := range opts {
		o(&setup)
	}
	sharedBrowser.once.Do(func() {
		profile := filepath.Join(scratchDir, "chromium-profile")
		sharedBrowser.ctx, sharedBrowser.stop, sharedBrowser.startup, sharedBrowser.err = startBrowser(profile)
	})
	if sharedBrowser.err != nil {
		t.Fatal(sharedBrowser.err)
	}
	tabCtx, closeTab := chromedp.NewContext(sharedBrowser.ctx, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(tabCtx); err != nil { // opens the tab, with no deadline
		closeTab()
		t.Fatalf("e2e: open a tab: %v", err)
	}
	logs := &pageLog{}
	if err := chromedp.Listen(tabCtx, logs.record); err != nil {
		closeTab()
		t.Fatalf("e2e: listen to the tab: %v", err)
	}
	ctx, cancel := context.WithTimeout(tabCtx, setup.timeout)
	ctx = context.WithValue(ctx, appKey{}, a)
	ctx = context.WithValue(ctx, pageLogKey{}, logs)
	t.Cleanup(func() {
		cancel()
		closeTab()
		logs.mu.Lock()
		defer logs.mu.Unlock()
		for _, l := range logs.lines {
			t.Logf("page console: %s", l)
		}
		for _, e := range logs.exceptions {
			t.Logf("page exception: %s", e)
		}
	})
	return ctx
}

// record runs on chromedp's reader goroutine: it must be quick and must
// not call back into the browser.
func (l *pageLog) record(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var parts []string
		for _, arg := range ev.Args {
			switch {
			case arg.Value != nil:
				parts = append(parts, string(arg.Value))
			case arg.Description != "":
				parts = append(parts, arg.Description)
			default:
				parts = append(parts, string(arg.Type))
			}
		}
		l.mu.Lock()
		l.lines = append(l.lines, fmt.Sprintf("%s: %s", ev.Type, strings.Join(parts, " ")))
		l.mu.Unlock()
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		l.mu.Lock()
		l.exceptions = append(l.exceptions, fmt.Sprintf("%s (%s:%d:%d)", msg, d.URL, d.LineNumber+1, d.ColumnNumber+1))
		l.mu.Unlock()
	}
}

// pageExceptions returns the uncaught exceptions the tab's pages have thrown
// so far.
func pageExceptions(ctx context.Context) []string {
	l, _ := ctx.Value(pageLogKey{}).(*pageLog)
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.exceptions...)
}

// requireNoPageExceptions fails the test if a page threw an uncaught
// exception: the scripts are meant to work, not to fail quietly.
func requireNoPageExceptions(t *testing.T, ctx context.Context) {
	t.Helper()
	if ex := pageExceptions(ctx); len(ex) > 0 {
		t.Errorf("the page threw %d uncaught exceptions:\n  %s", len(ex), strings.Join(ex, "\n  "))
	}
}

// visit loads path (e.g. "/problems/async-refund") of the test's app, waits
// for the load event and returns the HTTP status of the document.
func visit(t *testing.T, ctx context.Context, path string) int {
	t.Helper()
	a, _ := ctx.Value(appKey{}).(*app)
	if a == nil {
		t.Fatal("e2e: visit needs a context from newBrowser")
	}
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(a.url(path)))
	if err != nil {
		t.Fatalf("e2e: load %s: %v", path, err)
	}
	if resp == nil {
		t.Fatalf("e2e: load %s: no response", path)
	}
	return int(resp.Status)
}

// visitOK loads path and fails the test unless it answered 200.
func visitOK(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	if status := visit(t, ctx, path); status != http.StatusOK {
		t.Fatalf("GET %s: status %d, want 200", path, status)
	}
}

// loadAfter runs trigger (a click, a key press) and waits, 15 s at most,
// for the page it causes to load: a form post and its redirect.
func loadAfter(t *testing.T, ctx context.Context, what string, trigger chromedp.Action[chromedp.Void]) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, defaultWaitTimeout)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.WaitEvent(page.LoadEventFired, nil, trigger)); err != nil {
		t.Fatalf("%s: no page loaded: %v", what, err)
	}
}

// clickAndLoad clicks the first element sel matches and waits for the page
// it causes to load.
func clickAndLoad(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if !exists(t, ctx, sel) {
		t.Fatalf("nothing to click: no element matches %s", sel)
	}
	loadAfter(t, ctx, "click "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// clickInPlace clicks the first element sel matches: a form in-place.js
// sends without leaving the page (the caller waits for what it shows).
func clickInPlace(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if !exists(t, ctx, sel) {
		t.Fatalf("nothing to click: no element matches %s", sel)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible)); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// evalJS evaluates a JavaScript expression in the page and decodes its
// value. A promise is awaited.
func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("e2e: evaluate %s: %v", shorten(expr), err)
	}
	return v
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}

// exists reports whether sel matches an element now, without waiting.
func exists(t *testing.T, ctx context.Context, sel string) bool {
	t.Helper()
	return evalJS[bool](t, ctx, fmt.Sprintf(`document.querySelector(%s) !== null`, jsString(sel)))
}

// count is the number of elements sel matches now.
func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	return evalJS[int](t, ctx, fmt.Sprintf(`document.querySelectorAll(%s).length`, jsString(sel)))
}

// text is the rendered text (innerText) of the first element sel matches;
// the test fails if there is none.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s := evalJS[*string](t, ctx, fmt.Sprintf(`(() => { const el = document.querySelector(%s); return el ? el.innerText : null })()`, jsString(sel)))
	if s == nil {
		t.Fatalf("no element matches %s", sel)
	}
	return *s
}

// waitFor waits until sel matches a visible element (15 s at most). It
// polls in the page rather than through chromedp's DOM mirror, which can
// miss elements that scripts add.
func waitFor(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	waitUntil(t, ctx, sel+" to be visible", fmt.Sprintf(
		`(() => { const el = document.querySelector(%s); return el && el.checkVisibility({visibilityProperty: true}) })()`, jsString(sel)))
}

// waitUntil waits until the JavaScript expression is truthy (15 s at most,
// or the given timeout). what names the condition in the failure message.
func waitUntil(t *testing.T, ctx context.Context, what, expr string, timeout ...time.Duration) {
	t.Helper()
	limit := defaultWaitTimeout
	if len(timeout) > 0 {
		limit = timeout[0]
	}
	deadline := time.Now().Add(limit)
	var err error
	for {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`!!(%s)`, expr),
			chromedp.WithPollingTimeout(time.Until(deadline)), chromedp.WithPollingInterval(50*time.Millisecond)))
		// A page that was still settling (a reload, a redirect) when the
		// poll began takes the poll's JavaScript context with it: poll
		// again in the new page, within the same time.
		if err == nil || !strings.Contains(err.Error(), "Cannot find context with specified id") || time.Until(deadline) <= 0 {
			break
		}
	}
	if err != nil {
		t.Fatalf("waiting %v for %s (%s): %v", limit, what, shorten(expr), err)
	}
}

// typeKeys types text into the focused element, one key event per rune;
// "\n" is Enter.
func typeKeys(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(text)); err != nil {
		t.Fatalf("e2e: type %q: %v", shorten(text), err)
	}
}

// pressKey presses one key (a kb constant such as kb.Enter or kb.Escape)
// with optional modifiers.
func pressKey(t *testing.T, ctx context.Context, key string, mods ...chromedp.Modifier) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(key, chromedp.KeyModifiers(mods...))); err != nil {
		t.Fatalf("e2e: press %q: %v", key, err)
	}
}

// pressTab presses Tab n times (Shift-Tab when n is negative).
func pressTab(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	var mods []chromedp.Modifier
	if n < 0 {
		n, mods = -n, []chromedp.Modifier{chromedp.ModifierShift}
	}
	for range n {
		pressKey(t, ctx, kb.Tab, mods...)
	}
}

// activeElementID is the id of the focused element ("" when it has none or
// the body has focus).
func activeElementID(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalJS[string](t, ctx, `document.activeElement && document.activeElement !== document.body ? document.activeElement.id : ""`)
}

// focusedElement describes the focused element for messages and checks:
// tag, id, accessible-ish name, and whether the browser draws a focus
// indicator (an outline or a box shadow) for it.
type focusedElement struct {
	Tag          string `json:"tag"`
	ID           string `json:"id"`
	Name         string `json:"name"` // aria-label, text or value, trimmed
	FocusVisible bool   `json:"focusVisible"`
	Outline      string `json:"outline"`   // computed outline, e.g. "rgb(194, 65, 12) solid 3px"
	BoxShadow    string `json:"boxShadow"` // computed box-shadow
}

func (f focusedElement) String() string {
	s := "<" + f.Tag
	if f.ID != "" {
		s += "#" + f.ID
	}
	s += ">"
	if f.Name != "" {
		s += " " + jsString(f.Name)
	}
	return s
}

// indicated reports whether the element shows a focus ring.
func (f focusedElement) indicated() bool {
	outline := f.Outline != "" && !strings.Contains(f.Outline, "none") && !strings.Contains(f.Outline, " 0px")
	shadow := f.BoxShadow != "" && f.BoxShadow != "none"
	return outline || shadow
}

// focused describes document.activeElement.
func focused(t *testing.T, ctx context.Context) focusedElement {
	t.Helper()
	return evalJS[focusedElement](t, ctx, `(() => {
		const el = document.activeElement;
		if (!el || el === document.body) return {tag: "body"};
		const cs = getComputedStyle(el);
		const name = (el.getAttribute("aria-label") || el.innerText || el.value || "").trim().slice(0, 60);
		return {tag: el.tagName.toLowerCase(), id: el.id, name,
			focusVisible: el.matches(":focus-visible"),
			outline: cs.outlineStyle === "none" ? "none" : cs.outlineColor + " " + cs.outlineStyle + " " + cs.outlineWidth,
			boxShadow: cs.boxShadow};
	})()`)
}

// nextTabStop moves focus to the next Tab stop as a keyboard user would:
// Tab, except in a code editor, where Tab indents and the way out is
// Escape, then Tab.
func nextTabStop(t *testing.T, ctx context.Context) {
	t.Helper()
	if evalJS[bool](t, ctx, `!!(document.activeElement && document.activeElement.closest(".cm-editor"))`) {
		pressKey(t, ctx, kb.Escape)
	}
	pressTab(t, ctx, 1)
}

// tabUntil moves focus with nextTabStop until the focused element
// satisfies match, at most limit times, and returns it; what names the target in the failure
// message, which lists where focus went.
func tabUntil(t *testing.T, ctx context.Context, what string, limit int, match func(focusedElement) bool) focusedElement {
	t.Helper()
	var seen []string
	for range limit {
		nextTabStop(t, ctx)
		f := focused(t, ctx)
		if match(f) {
			return f
		}
		seen = append(seen, f.String())
	}
	t.Fatalf("%d Tab presses did not reach %s; focus went to:\n  %s", limit, what, strings.Join(seen, "\n  "))
	return focusedElement{}
}

// screenshotTo writes a PNG of the element sel, or of the viewport when sel
// is empty, to path.
func screenshotTo(t *testing.T, ctx context.Context, sel, path string) {
	t.Helper()
	shot := chromedp.CaptureScreenshot()
	if sel != "" {
		shot = chromedp.Screenshot(chromedp.CSS(sel), chromedp.NodeVisible)
	}
	png, err := chromedp.Run(ctx, shot)
	if err != nil {
		t.Fatalf("e2e: screenshot of %q: %v", sel, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// axeViolation is one rule axe-core found broken, with the elements that
// break it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"` // minor, moderate, serious, critical
	Help   string `json:"help"`
	URL    string `json:"helpUrl"`
	Nodes  []struct {
		Target  []string `json:"target"`
		Summary string   `json:"summary"`
	} `json:"nodes"`
}

func (v axeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s [%s]", v.ID, v.Impact, v.Help, v.URL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n      at %s", strings.Join(n.Target, " "))
		if n.Summary != "" {
			fmt.Fprintf(&b, "\n        %s", strings.ReplaceAll(strings.TrimSpace(n.Summary), "\n", "\n        "))
		}
	}
	return b.String()
}

// runAxe injects axe-core into the page (once per document) and returns its
// violations.
func runAxe(t *testing.T, ctx context.Context) []axeViolation {
	t.Helper()
	if !evalJS[bool](t, ctx, `typeof window.axe === "object"`) {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](axeSource)); err != nil {
			t.Fatalf("e2e: inject axe-core: %v", err)
		}
	}
	return evalJS[[]axeViolation](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, helpUrl: v.helpUrl,
			nodes: v.nodes.map(n => ({
				target: n.target.map(x => Array.isArray(x) ? x.join(" >>> ") : String(x)),
				summary: n.failureSummary || ""})) })))`)
}

// checkAxe runs axe-core on the page as it is now and fails the test on any
// serious or critical violation; minor and moderate ones are logged. label
// names the page state in messages ("problem page after hint 1").
func checkAxe(t *testing.T, ctx context.Context, label string) {
	t.Helper()
	for _, v := range runAxe(t, ctx) {
		switch v.Impact {
		case "serious", "critical":
			t.Errorf("axe on %s: %s", label, v)
		default:
			t.Logf("axe on %s (not failing): %s", label, v)
		}
	}
}
