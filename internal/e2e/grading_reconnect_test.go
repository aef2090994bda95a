package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// droppingProxy stands between the browser and the app and cuts the
// first grading stream after its first progress event, once cut is
// closed, as a lost network would; it notes each stream request's
// Last-Event-ID.
type droppingProxy struct {
	cut chan struct{}

	mu      sync.Mutex
	streams []string // Last-Event-ID of each /events request, "" for none
	dropped bool
}

func (p *droppingProxy) handler(target *url.URL) http.Handler {
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // pass each event on at once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/events") {
			rp.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.streams = append(p.streams, r.Header.Get("Last-Event-ID"))
		drop := !p.dropped
		p.dropped = true
		p.mu.Unlock()
		if drop {
			// Uncompressed, so the proxy can see where the event ends.
			r.Header.Del("Accept-Encoding")
			w = &cutAfterProgress{ResponseWriter: w, cut: p.cut, done: r.Context().Done()}
		}
		rp.ServeHTTP(w, r)
	})
}

func (p *droppingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.streams...)
}

// cutAfterProgress passes a stream on until a whole progress event has
// gone out, then aborts the connection when cut is closed (cutting at
// once can lose the event in the browser along with the connection).
type cutAfterProgress struct {
	http.ResponseWriter
	cut, done <-chan struct{}
	seen      bytes.Buffer
}

func (c *cutAfterProgress) Write(b []byte) (int, error) {
	before := c.seen.Len()
	c.seen.Write(b)
	all := c.seen.Bytes()
	i := bytes.Index(all, []byte("event: progress\n"))
	end := -1
	if i >= 0 {
		if j := bytes.Index(all[i:], []byte("\n\n")); j >= 0 {
			end = i + j + 2
		}
	}
	if end < 0 {
		return c.ResponseWriter.Write(b)
	}
	// Only up to the end of that event, however much came in one read.
	c.ResponseWriter.Write(b[:end-before])
	http.NewResponseController(c.ResponseWriter).Flush()
	select {
	case <-c.cut:
	case <-c.done:
	}
	panic(http.ErrAbortHandler) // the connection closes mid-stream
}

func (c *cutAfterProgress) Flush() { http.NewResponseController(c.ResponseWriter).Flush() }

// recordStreamEvents wraps the page's EventSource so the test can read
// every event it delivered: its name and lastEventId.
const recordStreamEvents = `(() => {
	const Native = window.EventSource;
	window.__streamEvents = [];
	window.EventSource = class extends Native {
		constructor(...args) {
			super(...args);
			for (const name of ["progress", "report", "busy", "system-error"]) {
				this.addEventListener(name, (e) => window.__streamEvents.push(name + " " + e.lastEventId));
			}
		}
	};
})();`

// TestGradeSurvivesADroppedStream cuts the grading stream after its first
// progress event: the browser reconnects by itself, naming the last event
// it had, and the page ends with the report, with no event twice and no
// "lost the connection".
func TestGradeSurvivesADroppedStream(t *testing.T) {
	t.Parallel()
	a := startApp(t)
	target, err := url.Parse(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &droppingProxy{cut: make(chan struct{})}
	front := httptest.NewServer(proxy.handler(target))
	t.Cleanup(front.Close)
	viaProxy := *a
	viaProxy.URL = front.URL

	ctx := newBrowser(t, &viaProxy, withTimeout(2*defaultTestTimeout))
	if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument,
			page.AddScriptToEvaluateOnNewDocumentParams{Source: recordStreamEvents})
		return err
	})); err != nil {
		t.Fatal(err)
	}
	openWorkspace(t, ctx)
	evalJS[bool](t, ctx, `(document.getElementById("grade-button").click(), true)`)
	waitUntil(t, ctx, "the first progress event", `window.__streamEvents.length > 0`, gradeWait)
	close(proxy.cut)
	waitForReport(t, ctx)

	if progress := text(t, ctx, "#grade-progress"); strings.Contains(progress, "Lost the connection") || !strings.Contains(progress, "scenarios passed") {
		t.Errorf("#grade-progress after the report = %q", progress)
	}
	streams := proxy.requests()
	events := evalJS[[]string](t, ctx, `window.__streamEvents`)
	t.Logf("stream requests' Last-Event-ID: %q; events received: %q", streams, events)
	if len(streams) < 2 || streams[0] != "" {
		t.Fatalf("stream requests' Last-Event-ID: %q; want a first without and a reconnect with one "+
			"(if the first has no progress event, the run ended before the stream opened)", streams)
	}
	if len(events) < 2 || events[0] != "progress 1" {
		t.Fatalf("the page received %q; want progress 1 first", events)
	}
	if streams[1] != "1" {
		t.Errorf("the reconnect sent Last-Event-ID %q; want 1, the event received before the cut", streams[1])
	}
	// Progress ids only go up, and the report comes once, last.
	last := 0
	for i, ev := range events {
		name, id, _ := strings.Cut(ev, " ")
		if name == "report" {
			if i != len(events)-1 {
				t.Errorf("events after the report: %q", events)
			}
			continue
		}
		n, err := strconv.Atoi(id)
		if name != "progress" || err != nil || n <= last {
			t.Errorf("event %d is %q after progress %d: received %q", i, ev, last, events)
		}
		last = n
	}
	if strings.Count(fmt.Sprint(events), "report") != 1 {
		t.Errorf("the report came %d times: %q", strings.Count(fmt.Sprint(events), "report"), events)
	}
	requireNoPageExceptions(t, ctx)
}
