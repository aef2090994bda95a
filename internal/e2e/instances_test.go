package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/jackc/pgx/v5"

	"github.com/faultline-dev/faultline/internal/pgtest"
)

// failover is a load balancer in front of instances: it sends every
// request to the current one, and moves to another when the test says
// the current one died, as a health check would.
type failover struct {
	*httptest.Server
	to atomic.Pointer[url.URL]
}

func newFailover(t *testing.T, first *app) *failover {
	t.Helper()
	f := &failover{}
	f.moveTo(t, first)
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(f.to.Load())
			r.Out.Host = r.In.Host // the pages check Origin against the host asked for
		},
		FlushInterval: -1, // each event on at once
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, "the instance is gone", http.StatusBadGateway)
		},
	}
	f.Server = httptest.NewServer(rp)
	t.Cleanup(func() { f.CloseClientConnections(); f.Close() })
	return f
}

func (f *failover) moveTo(t *testing.T, a *app) {
	u, err := url.Parse(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	f.to.Store(u)
	if f.Server != nil {
		// Streams open through the dead instance's connections end now,
		// as the peer's reset would end them.
		f.CloseClientConnections()
	}
}

// kill9 ends an instance as a crash would: SIGKILL to its process group,
// grading children and all, with nothing recorded.
func kill9(t *testing.T, a *app) {
	t.Helper()
	if err := syscall.Kill(-a.pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", a.pid, err)
	}
}

// on is a for the same browser context: its pages at b's address.
func on(ctx context.Context, b *app) context.Context { return context.WithValue(ctx, appKey{}, b) }

// TestTwoInstancesOnePostgres runs the multi-instance set-up of issue 13
// in Chromium: two (then three) server binaries on one Postgres. A room
// whose interviewer is on instance A and candidate on B works as on one
// server, and a run the interviewer starts on A is followed on B. Then
// A is killed (kill -9) in the middle of the candidate's typing storm
// through the load balancer, which moves to B: no keystroke is lost.
func TestTwoInstancesOnePostgres(t *testing.T) {
	db := pgtest.URL(t)
	a := startApp(t, withServeFlags("-db", db))
	b := startApp(t, withServeFlags("-db", db))

	iv := newBrowser(t, a, withTimeout(4*time.Minute))
	visitOK(t, iv, "/rooms/new")
	evalJS[bool](t, iv, `(document.querySelector('input[value="screen:applied-ai-tech-screen"]').checked = true, true)`)
	clickAndLoad(t, iv, `form.room-new button[type="submit"]`)
	links := evalJS[[]string](t, iv, `[...document.querySelectorAll("input.room-link")].map(i => i.value)`)
	if len(links) != 2 || !strings.HasPrefix(links[1], a.URL) {
		t.Fatalf("the new room's links: %q", links)
	}
	enter := func(ctx context.Context, link, role string) {
		t.Helper()
		visit(t, ctx, strings.TrimPrefix(link, a.URL))
		// Through a reload too: under load the first page can be
		// replaced while the editor loads (a context chromedp loses).
		waitUntilReloaded(t, ctx, `document.querySelector("#room[data-role=`+role+`]")`)
		waitUntilReloaded(t, ctx, `document.querySelector("#room .cm-content")`)
	}
	cand := newBrowser(t, b, withTimeout(4*time.Minute))
	enter(iv, links[0], "interviewer")
	enter(cand, links[1], "candidate") // on B
	room := evalJS[string](t, cand, `location.pathname`)

	typeAtStart := func(ctx context.Context, s string) {
		t.Helper()
		evalJS[bool](t, ctx, `(() => { const v = window.faultlineRoom.editor.view; v.focus(); v.dispatch({selection: {anchor: 0}}); return true })()`)
		typeKeys(t, ctx, s)
	}
	editorText := `document.querySelector("#room .cm-content").innerText`
	typeAtStart(cand, "// typed on B ")
	waitUntil(t, iv, "B's keystrokes on A's page", editorText+`.includes("typed on B")`, 30*time.Second)

	// A run started on A, shared, is followed on B.
	click := func(ctx context.Context, sel string) {
		t.Helper()
		waitFor(t, ctx, sel)
		evalJS[bool](t, ctx, `(document.querySelector(`+jsString(sel)+`).click(), true)`)
	}
	click(iv, `form[action$="/run"] button`)
	waitUntil(t, iv, "the run's share button on A", `document.querySelector('form[action$="/share"] button')`, 90*time.Second)
	click(iv, `form[action$="/share"] button`)
	waitUntil(t, cand, "A's run on B's page", `document.querySelector(".room-run")`, 30*time.Second)

	// The candidate moves behind the load balancer, on A; the interviewer
	// follows from B.
	lb := newFailover(t, a)
	viaLB := *a
	viaLB.URL = lb.URL
	cand = on(cand, &viaLB)
	visitOK(t, cand, room)
	waitUntil(t, cand, "the shared editor through the balancer", `document.querySelector("#room .cm-content")`)
	iv = on(iv, b)
	visitOK(t, iv, room)
	waitUntil(t, iv, "the shared editor on B", `document.querySelector("#room .cm-content")`)

	// The storm: A dies a moment into it and the balancer moves to B.
	var blocks []string
	for i := range 4 {
		blocks = append(blocks, fmt.Sprintf("<%d>abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", i))
	}
	storm := strings.Join(blocks, "")
	evalJS[bool](t, cand, `(() => { const v = window.faultlineRoom.editor.view; v.focus(); v.dispatch({selection: {anchor: 0}}); return true })()`)
	typed := make(chan time.Time, 1)
	go func() {
		if err := chromedp.Do(cand, chromedp.KeyEvent(storm)); err != nil {
			t.Errorf("typing the storm: %v", err)
		}
		typed <- time.Now()
	}()
	time.Sleep(300 * time.Millisecond)
	kill9(t, a)
	killed := time.Now()
	lb.moveTo(t, b)
	if done := <-typed; done.Before(killed) {
		t.Fatalf("the storm was typed in full before A was killed: the test needs a longer one")
	}
	waitUntil(t, iv, "every keystroke of the storm on B", editorText+`.includes(`+jsString(storm)+`)`, 60*time.Second)
	waitUntil(t, cand, "the candidate's editor synced with B", editorText+` === `+jsString(text(t, iv, "#room .cm-content")), 60*time.Second)
	if got := text(t, iv, "#room .cm-content"); strings.Count(got, storm) != 1 {
		t.Errorf("the storm is in the document %d times: %q", strings.Count(got, storm), shorten(got))
	}
	// A fresh load from the store agrees.
	visitOK(t, iv, room)
	waitUntil(t, iv, "the stored document", editorText+`.includes(`+jsString(storm)+`)`, 30*time.Second)

	requireNoPageExceptions(t, iv)
}

// TestAGradeOnAKilledInstance kills (kill -9) the instance grading a run:
// the page, moved to the other instance by the balancer, ends the run as
// stopped within the lease (15 s) and a reconnect, and the run is kept
// with that ending.
func TestAGradeOnAKilledInstance(t *testing.T) {
	db := pgtest.URL(t)
	a := startApp(t, withServeFlags("-db", db))
	b := startApp(t, withServeFlags("-db", db))
	lb := newFailover(t, a)
	viaLB := *a
	viaLB.URL = lb.URL
	ctx := newBrowser(t, &viaLB, withTimeout(3*time.Minute))
	openWorkspace(t, ctx)
	// Code that spins in every scenario, so the grading is still going
	// (until the grader's limits stop it, seconds later) when its instance
	// is killed.
	slow := strings.Replace(contentFile(t, "problems/async-refund/starter/refund.go"),
		"(refundkit.Outcome, error) {\n", "(refundkit.Outcome, error) {\n\tfor n := 0; n < 1<<40; n++ {\n\t}\n", 1)
	if !strings.Contains(slow, "1<<40") {
		t.Fatal("the starter's RefundMoney was not found")
	}
	setCode(t, ctx, slow)
	evalJS[bool](t, ctx, `(document.getElementById("grade-button").click(), true)`)
	// A has recorded the run (as running, owned by A) before it dies.
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for started := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		var n int
		if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM grade_runs WHERE status = 'running'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		if time.Since(started) > 30*time.Second {
			t.Fatal("no run was recorded as running within 30 s of the Grade")
		}
	}
	kill9(t, a)
	lb.moveTo(t, b)
	deadline := time.Now().Add(90 * time.Second)
	for {
		progress := text(t, ctx, "#grade-progress")
		if strings.Contains(progress, "stopped before it finished") {
			break
		}
		if time.Now().After(deadline) || strings.Contains(progress, "Lost the connection") || exists(t, ctx, "#grade-report section.grade-report") {
			t.Fatalf("the killed run's page says %q; want that the server stopped", shorten(progress))
		}
		time.Sleep(500 * time.Millisecond)
	}
	var status, message string
	if err := conn.QueryRow(context.Background(), `SELECT status, message FROM grade_runs`).Scan(&status, &message); err != nil {
		t.Fatal(err)
	}
	if status != "system-error" || !strings.Contains(message, "stopped before it finished") {
		t.Errorf("the killed run is stored as %s %q", status, message)
	}
	requireNoPageExceptions(t, ctx)
}
