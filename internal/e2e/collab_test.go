package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/faultline-dev/faultline/internal/collab"
)

// collabDoc is the one document of the shared-editor tests.
const collabDoc = "shared"

// collabServer is a minimal server for the shared editor, without rooms:
// internal/collab's Authority over a memory store, a page with the editor,
// and a transport of POST /push, GET /pull and a stream of updates and
// cursor reports (server-sent events).
type collabServer struct {
	authority *collab.Authority
	mu        sync.Mutex
	streams   map[chan []byte]*stream // each open stream
	offline   map[string]bool         // clients whose connection is "dropped"
	pushes    int                     // answered, for the log: how often the editors raced
	conflicts int
}

// stream is one open event stream: the client it serves, and a channel
// closed to end it.
type stream struct {
	client string
	drop   chan struct{}
}

func newCollabServer(t *testing.T, initial string) (*collabServer, *httptest.Server) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := &collabServer{streams: map[chan []byte]*stream{}, offline: map[string]bool{}}
	s.authority = collab.NewAuthority(collab.NewMemoryStore(), collab.Options{
		Initial: func(context.Context, string) (string, error) { return initial, nil },
		Advanced: func(_ string, version int, ups []collab.Update) {
			b, _ := json.Marshal(map[string]any{"version": version, "updates": ups})
			s.publish("updates", b)
		},
	})
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServer(http.Dir(filepath.Join(root, "web", "static")))))
	mux.HandleFunc("GET /editor", s.page)
	mux.HandleFunc("POST /push", s.reachable(s.push))
	mux.HandleFunc("GET /pull", s.reachable(s.pull))
	mux.HandleFunc("POST /selection", s.reachable(s.selection))
	mux.HandleFunc("GET /events", s.reachable(s.events))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return s, srv
}

var collabPage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shared editor</title>
<link rel="stylesheet" href="/static/site.css"></head>
<body><main>
<h1>Shared editor</h1>
<label for="code">Code</label>
<textarea id="code">{{.Text}}</textarea>
</main>
<script src="/static/editor.js"></script>
<script src="/static/editor-collab.js"></script>
<script>
const me = {clientID: {{.ClientID}}, name: {{.Name}}, colour: {{.Colour}}};
let deliver = null;
const post = (path, body) => fetch(path + "?client=" + me.clientID, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)})
	.then(r => { if (!r.ok) throw new Error(path + ": " + r.status); return r.json(); });
const transport = {
	push: (version, updates) => post("/push", {version, updates}),
	pull: (since) => fetch("/pull?since=" + since + "&client=" + me.clientID).then(r => { if (!r.ok) throw new Error("pull: " + r.status); return r.json(); }),
	onUpdates: (cb) => { deliver = cb; },
};
window.ed = FaultlineEditor.mount(document.getElementById("code"), {
	collab: {startVersion: {{.Version}}, ...me, transport,
		onSelection: (report) => post("/selection", report).catch(() => {})},
});
// The stream, opened again whenever it fails (EventSource gives up on an
// error status). What happened while it was closed comes by a pull once it
// is open.
function connect() {
	const events = new EventSource("/events?client=" + me.clientID);
	events.addEventListener("updates", (e) => { const m = JSON.parse(e.data); deliver(m.updates, m.version); });
	events.addEventListener("selection", (e) => ed.collab.setPeer(JSON.parse(e.data)));
	events.onopen = () => { ed.collab.pull(); window.streamOpen = true; };
	events.onerror = () => {
		window.streamOpen = false;
		events.close();
		setTimeout(connect, 300);
	};
}
connect();
</script>
</body></html>`))

func (s *collabServer) page(w http.ResponseWriter, r *http.Request) {
	text, version, err := s.authority.Text(r.Context(), collabDoc)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	colour, _ := strconv.Atoi(r.URL.Query().Get("colour"))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	collabPage.Execute(w, map[string]any{
		"Text": text, "Version": version, "Colour": colour,
		"ClientID": r.URL.Query().Get("client"), "Name": r.URL.Query().Get("name"),
	})
}

func (s *collabServer) push(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Version int             `json:"version"`
		Updates []collab.Update `json:"updates"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, collab.MaxPushBytes+4096)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	res, err := s.authority.Push(r.Context(), collabDoc, req.Version, req.Updates)
	s.mu.Lock()
	s.pushes++
	if res.Conflict {
		s.conflicts++
	}
	s.mu.Unlock()
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
	case res.Rejected != "":
		writeJSON(w, map[string]string{"rejected": res.Rejected})
	case res.Conflict:
		writeJSON(w, map[string]bool{"conflict": true})
	default:
		writeJSON(w, map[string]bool{"ok": true})
	}
}

func (s *collabServer) pull(w http.ResponseWriter, r *http.Request) {
	since, err := strconv.Atoi(r.URL.Query().Get("since"))
	if err != nil {
		http.Error(w, "since: "+err.Error(), http.StatusBadRequest)
		return
	}
	ups, err := s.authority.Pull(r.Context(), collabDoc, since)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	writeJSON(w, ups)
}

func (s *collabServer) selection(w http.ResponseWriter, r *http.Request) {
	var report json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&report); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.publish("selection", report)
	writeJSON(w, map[string]bool{"ok": true})
}

// reachable answers 503 to a client whose connection is dropped.
func (s *collabServer) reachable(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		off := s.offline[r.URL.Query().Get("client")]
		s.mu.Unlock()
		if off {
			http.Error(w, "offline", http.StatusServiceUnavailable)
			return
		}
		h(w, r)
	}
}

// setOffline drops a client's connection (its stream ends, its requests
// fail) or lets it back.
func (s *collabServer) setOffline(client string, off bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.offline[client] = off
	if off {
		for ch, st := range s.streams {
			if st.client == client {
				close(st.drop)
				delete(s.streams, ch)
			}
		}
	}
}

// publish sends an event to every open stream. A stream too far behind
// loses it; its editor fills the gap by a pull when the next update comes.
func (s *collabServer) publish(event string, data []byte) {
	msg := []byte(fmt.Sprintf("event: %s\ndata: %s\n\n", event, data))
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.streams {
		select {
		case ch <- msg:
		default:
		}
	}
}

func (s *collabServer) events(w http.ResponseWriter, r *http.Request) {
	ch := make(chan []byte, 1024)
	st := &stream{client: r.URL.Query().Get("client"), drop: make(chan struct{})}
	s.mu.Lock()
	s.streams[ch] = st
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.streams, ch)
		s.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	flusher := w.(http.Flusher)
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-st.drop:
			return
		case msg := <-ch:
			if _, err := w.Write(msg); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// openSharedEditor opens the editor page in a fresh browser context as one
// participant, with keyboard focus emulated (two headless tabs cannot both
// have the system's focus), and waits for the stream to be open.
func openSharedEditor(t *testing.T, srv *httptest.Server, client, name string, colour int) context.Context {
	t.Helper()
	ctx := newBrowser(t, &app{URL: srv.URL}, withTimeout(2*defaultTestTimeout))
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.Fatalf("e2e: emulate focus: %v", err)
	}
	visitOK(t, ctx, fmt.Sprintf("/editor?client=%s&name=%s&colour=%d", client, name, colour))
	waitUntil(t, ctx, "the update stream to open", `window.streamOpen === true`)
	return ctx
}

// TestSharedEditorInChromium has two participants type into one document at
// once, each in its own browser context, through internal/collab's
// Authority: both end with the Authority's text, holding every keystroke of
// both, and each sees the other's cursor where the other's is.
func TestSharedEditorInChromium(t *testing.T) {
	t.Parallel()
	requireBrowser(t)
	const initial = "package main\n\nfunc main() {\n}\n"
	cs, srv := newCollabServer(t, initial)
	ada := openSharedEditor(t, srv, "ada", "Ada", 0)
	bea := openSharedEditor(t, srv, "bea", "Bea", 1)

	// Ada types at the top, Bea inside main's body, both at once. (No
	// Enter or Tab: the editor's auto-indent would make the text depend on
	// timing within one side.)
	const adaTypes = "// Ada é 😀."
	const beaTypes = `println("Bea")`
	evalJS[bool](t, ada, `(ed.focus(), ed.view.dispatch({selection: {anchor: 0}}), true)`)
	evalJS[bool](t, bea, `(ed.focus(), ed.view.dispatch({selection: {anchor: ed.getValue().indexOf("{\n") + 2}}), true)`)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, p := range []struct {
		ctx  context.Context
		text string
	}{{ada, adaTypes}, {bea, beaTypes}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range p.text {
				if err := chromedp.Do(p.ctx, chromedp.KeyEvent(string(r))); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("e2e: type: %v", err)
		}
	}

	// Both settle on the Authority's text, which holds every keystroke.
	settled := `ed.collab.pending() === 0`
	waitUntil(t, ada, "Ada's updates to be confirmed", settled)
	waitUntil(t, bea, "Bea's updates to be confirmed", settled)
	want, version, err := cs.authority.Text(context.Background(), collabDoc)
	if err != nil {
		t.Fatal(err)
	}
	same := fmt.Sprintf(`ed.getValue() === %s && ed.collab.version() === %d`, jsString(want), version)
	waitUntil(t, ada, "Ada's editor to hold the Authority's text", same)
	waitUntil(t, bea, "Bea's editor to hold the Authority's text", same)
	if wantText := adaTypes + "package main\n\nfunc main() {\n" + beaTypes + "}\n"; want != wantText {
		t.Errorf("the shared text is %q; want %q", want, wantText)
	}
	cs.mu.Lock()
	t.Logf("%d keystrokes, %d versions, %d pushes of which %d conflicts", len([]rune(adaTypes+beaTypes)), version, cs.pushes, cs.conflicts)
	cs.mu.Unlock()
	if version < len([]rune(adaTypes+beaTypes))/2 {
		t.Errorf("version %d after %d keystrokes: the keystrokes were not sent one by one", version, len([]rune(adaTypes+beaTypes)))
	}

	// Each sees the other's cursor: a caret named for the other, where the
	// other's cursor is.
	for _, p := range []struct {
		name      string
		ctx, peer context.Context
		peerName  string
	}{{"Ada", ada, bea, "Bea"}, {"Bea", bea, ada, "Ada"}} {
		head := evalJS[int](t, p.peer, `ed.view.state.selection.main.head`)
		waitUntil(t, p.ctx, p.name+" to see "+p.peerName+"'s cursor", fmt.Sprintf(
			`ed.collab.peers().some(x => x.name === %s && x.head === %d) && document.querySelector(%s)`,
			jsString(p.peerName), head, jsString(`.cm-faultline-peer-caret[aria-label="`+p.peerName+`'s cursor"]`)))
	}

	// Bea's connection drops while both type: her editor keeps her
	// keystrokes, and once back it pulls Ada's, rebases its own over them
	// and pushes; nothing is lost or doubled.
	cs.setOffline("bea", true)
	waitUntil(t, bea, "Bea's stream to drop", `window.streamOpen === false`)
	for _, p := range []struct {
		ctx  context.Context
		text string
	}{{ada, "A1"}, {bea, "B2"}} {
		for _, r := range p.text {
			if err := chromedp.Do(p.ctx, chromedp.KeyEvent(string(r))); err != nil {
				t.Fatalf("e2e: type: %v", err)
			}
		}
	}
	waitUntil(t, ada, "Ada's updates to be confirmed", settled)
	if n := evalJS[int](t, bea, `ed.collab.pending()`); n == 0 {
		t.Fatal("Bea's editor has no unconfirmed updates while offline: the drop did not happen")
	}
	cs.setOffline("bea", false)
	waitUntil(t, bea, "Bea's updates to be confirmed after reconnecting", settled+` && window.streamOpen`, 30*time.Second)
	want, version, err = cs.authority.Text(context.Background(), collabDoc)
	if err != nil {
		t.Fatal(err)
	}
	same = fmt.Sprintf(`ed.getValue() === %s && ed.collab.version() === %d`, jsString(want), version)
	waitUntil(t, ada, "Ada's editor to hold the Authority's text after the reconnection", same)
	waitUntil(t, bea, "Bea's editor to hold the Authority's text after the reconnection", same)
	if wantText := adaTypes + "A1package main\n\nfunc main() {\n" + beaTypes + "B2}\n"; want != wantText {
		t.Errorf("after the reconnection the shared text is %q; want %q", want, wantText)
	}

	// A selection shows as a tint on the other side, and the page stays
	// accessible with both, in both themes.
	evalJS[bool](t, bea, `(ed.view.dispatch({selection: {anchor: 0, head: 7}}), true)`)
	waitUntil(t, ada, "Bea's selection to show", `document.querySelector(".cm-faultline-peer-selection")`)
	checkAxe(t, ada, "the shared editor with a peer's cursor and selection")
	// Bea's colour is 1, green: the caret and tint of the palette in
	// web/editor/src/collab.js, whose contrast figures axe cannot check for
	// the caret (a border, not text).
	peerLook := `(() => { const c = document.querySelector(".cm-faultline-peer-caret"), s = document.querySelector(".cm-faultline-peer-selection");
		return getComputedStyle(c).borderLeftColor + " " + getComputedStyle(s).backgroundColor })()`
	if got, want := evalJS[string](t, ada, peerLook), "rgb(29, 107, 53) rgb(213, 238, 219)"; got != want {
		t.Errorf("light theme: Bea's caret and selection are %s; want %s", got, want)
	}
	emulateDark(t, ada)
	if got, want := evalJS[string](t, ada, peerLook), "rgb(107, 209, 122) rgb(23, 56, 31)"; got != want {
		t.Errorf("dark theme: Bea's caret and selection are %s; want %s", got, want)
	}
	checkAxe(t, ada, "the shared editor, dark, with a peer's cursor and selection")
	requireNoPageExceptions(t, ada)
	requireNoPageExceptions(t, bea)
}
