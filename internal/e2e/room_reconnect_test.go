package e2e

import (
	"bufio"
	"context"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// dropProxy is one participant's way to the app: a loopback TCP proxy
// whose connections the test can cut, as a network that drops does. While
// it is down every connection is closed as soon as it is made, so the
// browser sees a network error (an EventSource then reconnects by itself,
// and the editor's transport retries), never an HTTP answer. It notes the
// Last-Event-ID header of every request that carries one.
type dropProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]struct{}
	resume []int64 // the Last-Event-ID of each request that sent one, in order
}

func newDropProxy(t *testing.T, target string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.setDown(true)
	})
	return p
}

func (p *dropProxy) url() string { return "http://" + p.ln.Addr().String() }

func (p *dropProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.handle(c)
	}
}

func (p *dropProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *dropProxy) handle(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	if !p.track(client, server) {
		return
	}
	done := make(chan struct{}, 2)
	go func() {
		// What the browser sends passes through a reader that notes the
		// Last-Event-ID headers on the way.
		pr, pw := io.Pipe()
		go p.noteResumes(pr)
		io.Copy(server, io.TeeReader(client, pw))
		pw.Close()
		done <- struct{}{}
	}()
	go func() { io.Copy(client, server); done <- struct{}{} }()
	<-done
}

var lastEventIDHeader = regexp.MustCompile(`(?i)^last-event-id:\s*(\d+)\s*$`)

func (p *dropProxy) noteResumes(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		if m := lastEventIDHeader.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			p.mu.Lock()
			p.resume = append(p.resume, n)
			p.mu.Unlock()
		}
	}
	io.Copy(io.Discard, r)
}

// setDown cuts every connection and refuses new ones (true), or lets
// them through again.
func (p *dropProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
		clear(p.conns)
	}
}

func (p *dropProxy) resumes() []int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int64(nil), p.resume...)
}

// recordRoomEvents wraps the room page's EventSource so the test can read
// the id of every event it delivered, of every kind room.js follows.
const recordRoomEvents = `(() => {
	const Native = window.EventSource;
	window.__roomEventIDs = [];
	window.EventSource = class extends Native {
		constructor(...args) {
			super(...args);
			for (const name of ["room.created", "item.changed", "hint.released", "timer.started", "timer.paused",
				"timer.resumed", "timer.extended", "code.update", "cursor.moved", "answer.text", "run.started",
				"run.finished", "run.shared", "note.saved", "rubric.scored", "recommendation.set", "signal.paste",
				"signal.hidden", "signal.visible", "room.ended"]) {
				this.addEventListener(name, (e) => window.__roomEventIDs.push(Number(e.lastEventId)));
			}
		}
	};
})();`

// TestRoomReconnect drops both participants' connections to a live room
// (their event streams and the shared editor's pushes and pulls) while
// both type, then lets them back: the streams resume from their
// Last-Event-ID, the editors push what they typed meanwhile, and both end
// with the same text as the server, holding every keystroke exactly once.
func TestRoomReconnect(t *testing.T) {
	a := startApp(t)
	target := strings.TrimPrefix(a.URL, "http://")
	ivNet, candNet := newDropProxy(t, target), newDropProxy(t, target)
	ivApp, candApp := *a, *a
	ivApp.URL, candApp.URL = ivNet.url(), candNet.url()
	iv := newBrowser(t, &ivApp, withTimeout(3*time.Minute))
	cand := newBrowser(t, &candApp, withTimeout(3*time.Minute))
	for _, ctx := range []context.Context{iv, cand} {
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: recordRoomEvents}); err != nil {
			t.Fatalf("e2e: install the stream recorder: %v", err)
		}
	}

	visitOK(t, iv, "/rooms/new")
	evalJS[bool](t, iv, `(document.querySelector('input[value="problem:async-refund"]').checked = true, true)`)
	clickAndLoad(t, iv, `form.room-new button[type="submit"]`)
	links := evalJS[[]string](t, iv, `[...document.querySelectorAll("input.room-link")].map(i => i.value)`)
	if len(links) != 2 {
		t.Fatalf("the new room's links: %q", links)
	}
	open := func(ctx context.Context, link, role string) {
		t.Helper()
		u := link[strings.Index(link, "/rooms/"):]
		visit(t, ctx, u)
		waitUntilReloaded(t, ctx, `document.querySelector("#room[data-role=`+role+`] .cm-content")`)
	}
	open(iv, links[0], "interviewer")
	open(cand, links[1], "candidate")

	editorText := `window.faultlineRoom.editor.view.state.doc.toString()`
	// The candidate types at the start of the code, the interviewer at its
	// end, so each one's keystrokes stay together whatever the order the
	// server puts them in.
	typeAt := func(ctx context.Context, where, s string) {
		t.Helper()
		evalJS[bool](t, ctx, `(() => { const v = window.faultlineRoom.editor.view; v.focus();
			v.dispatch({selection: {anchor: `+where+`}}); return true })()`)
		typeKeys(t, ctx, s)
	}
	const atStart, atEnd = "0", "v.state.doc.length"
	typeAt(cand, atStart, "/*c-before*/")
	typeAt(iv, atEnd, "//i-before")
	for _, p := range []struct {
		ctx  context.Context
		name string
	}{{iv, "interviewer"}, {cand, "candidate"}} {
		waitUntil(t, p.ctx, "both texts before the drop on the "+p.name+"'s page",
			editorText+`.includes("c-before") && `+editorText+`.includes("i-before")`, 30*time.Second)
	}
	before := map[*dropProxy]int{ivNet: len(ivNet.resumes()), candNet: len(candNet.resumes())}

	// The network goes; both keep typing.
	ivNet.setDown(true)
	candNet.setDown(true)
	typeAt(cand, atStart, "/*c-during*/")
	typeAt(iv, atEnd, "//i-during")
	for _, ctx := range []context.Context{iv, cand} {
		waitUntil(t, ctx, "keystrokes held for want of a network", `window.faultlineRoom.editor.collab.pending() > 0`)
	}
	time.Sleep(2500 * time.Millisecond) // past the streams' retry delay: they reconnect into the void
	for _, ctx := range []context.Context{iv, cand} {
		if evalJS[int](t, ctx, `window.faultlineRoom.editor.collab.pending()`) == 0 {
			t.Fatal("an editor had its updates confirmed while the network was down: the drop did not happen")
		}
	}
	ivNet.setDown(false)
	candNet.setDown(false)
	typeAt(cand, atStart, "/*c-after*/")
	typeAt(iv, atEnd, "//i-after")

	markers := []string{"/*c-before*/", "//i-before", "/*c-during*/", "//i-during", "/*c-after*/", "//i-after"}
	var all []string
	for _, m := range markers {
		all = append(all, editorText+`.split(`+jsString(m)+`).length === 2`)
	}
	settled := `window.faultlineRoom.editor.collab.pending() === 0 && ` + strings.Join(all, " && ")
	for _, p := range []struct {
		ctx  context.Context
		name string
	}{{iv, "interviewer"}, {cand, "candidate"}} {
		waitUntil(t, p.ctx, "every keystroke once, nothing left to push, on the "+p.name+"'s page", settled, 60*time.Second)
	}
	// Both at the server's latest version, with one text.
	var ivText, candText string
	deadline := time.Now().Add(30 * time.Second)
	for {
		iv1, c1 := evalJS[int](t, iv, `window.faultlineRoom.editor.collab.version()`), evalJS[int](t, cand, `window.faultlineRoom.editor.collab.version()`)
		ivText, candText = evalJS[string](t, iv, editorText), evalJS[string](t, cand, editorText)
		if iv1 == c1 && ivText == candText {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the reconnection the two editors differ: versions %d and %d,\ninterviewer: %s\ncandidate: %s",
				iv1, c1, shorten(ivText), shorten(candText))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.HasPrefix(ivText, "/*c-after*//*c-during*//*c-before*/") || !strings.HasSuffix(ivText, "//i-before//i-during//i-after") {
		t.Fatalf("the keystrokes are not where they were typed: %s ... %s", shorten(ivText[:min(len(ivText), 60)]), ivText[max(len(ivText)-60, 0):])
	}
	// Each page's stream delivered every event once, in order, without a
	// gap, from the one after its page's until now, across the drop.
	for _, p := range []struct {
		ctx  context.Context
		name string
	}{{iv, "interviewer"}, {cand, "candidate"}} {
		ids := evalJS[[]int](t, p.ctx, `window.__roomEventIDs`)
		first := evalJS[int](t, p.ctx, `Number(document.getElementById("room").dataset.lastSeq)`) + 1
		if len(ids) == 0 || ids[0] != first {
			t.Fatalf("the %s's stream began at %v; want event %d, the one after its page's", p.name, ids[:min(len(ids), 1)], first)
		}
		for i := 1; i < len(ids); i++ {
			if ids[i] != ids[i-1]+1 {
				t.Fatalf("the %s's stream delivered event %d after %d: lost or repeated events (%v)", p.name, ids[i], ids[i-1], ids)
			}
		}
	}
	// The server holds the same: a fresh page of the room starts from it.
	visit(t, cand, regexp.MustCompile(`/rooms/[^/]+`).FindString(links[1]))
	waitUntil(t, cand, "the reloaded candidate's editor", `window.faultlineRoom && window.faultlineRoom.editor`)
	if fresh := evalJS[string](t, cand, editorText); fresh != ivText {
		t.Fatalf("the server's text differs from the editors':\nserver: %s\neditors: %s", shorten(fresh), shorten(ivText))
	}

	// Each stream came back from where it was, not from the start.
	for _, p := range []struct {
		net  *dropProxy
		name string
	}{{ivNet, "interviewer"}, {candNet, "candidate"}} {
		ids := p.net.resumes()[before[p.net]:]
		if len(ids) == 0 {
			t.Fatalf("the %s's stream never reconnected with a Last-Event-ID", p.name)
		}
		if ids[len(ids)-1] <= 0 {
			t.Fatalf("the %s's stream resumed from %d; want the last event it had", p.name, ids[len(ids)-1])
		}
	}
	requireNoPageExceptions(t, iv)
	requireNoPageExceptions(t, cand)
}
