package main

import (
	"bufio"
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/faultline-dev/faultline/internal/pgtest"
)

// instance is one run() serving on loopback; stop is its SIGTERM.
type instance struct {
	base string
	stop context.CancelFunc
	done chan error
}

func startInstance(t *testing.T, db string) *instance {
	t.Helper()
	addrs := make(chan net.Addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	in := &instance{stop: cancel, done: make(chan error, 1)}
	cfg := serveConfig{Addr: "127.0.0.1:0", DB: db, onListen: func(a net.Addr) { addrs <- a }}
	go func() { in.done <- run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	select {
	case a := <-addrs:
		in.base = "http://" + a.String()
	case err := <-in.done:
		t.Fatalf("run returned before listening: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("run did not start listening")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-in.done:
		case <-time.After(shutdownTimeout + 5*time.Second):
			t.Error("an instance did not stop")
		}
	})
	return in
}

func newClient(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 30 * time.Second}
}

func fetch(t *testing.T, c *http.Client, method, u, contentType, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %.300s", method, u, resp.StatusCode, b)
	}
	return b
}

var (
	enterLink = regexp.MustCompile(`/rooms/([A-Za-z0-9_-]+)/enter\?key=([A-Za-z0-9_-]+)`)
	textArea  = regexp.MustCompile(`(?s)<textarea[^>]*id="room-code-textarea"[^>]*>(.*?)</textarea>`)
)

func pageAttr(t *testing.T, page []byte, name string) string {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(name) + `="([^"]*)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("the page has no %s", name)
	}
	return html.UnescapeString(string(m[1]))
}

// roomEvent is one event of a room's stream: its id and, for a
// code.update, the editor version it carries.
type roomEvent struct {
	id      int64
	name    string
	version int
}

// follow reads a room's stream from base after lastID into a channel,
// closed when the server ends the stream.
func follow(t *testing.T, c *http.Client, u string, lastID int64) <-chan roomEvent {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
	stream := &http.Client{Jar: c.Jar} // no timeout: the stream is long
	resp, err := stream.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET %s: %d", u, resp.StatusCode)
	}
	out := make(chan roomEvent, 256)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		var ev roomEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					out <- ev
				}
				ev = roomEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id, _ = strconv.ParseInt(line[4:], 10, 64)
			case strings.HasPrefix(line, "event: "):
				ev.name = line[7:]
			case strings.HasPrefix(line, "data: ") && ev.name == "code.update":
				var d struct {
					Version int `json:"version"`
				}
				json.Unmarshal([]byte(line[6:]), &d)
				ev.version = d.Version
			}
		}
	}()
	return out
}

// Two instances on one Postgres, the interviewer on A and the candidate on
// B: A's stream delivers what is typed on B; stopping A ends its stream,
// and the interviewer, reconnecting to B with Last-Event-ID, gets what was
// typed meanwhile, nothing lost and nothing twice.
func TestTwoInstancesServeOneRoom(t *testing.T) {
	db := pgtest.URL(t)
	a, b := startInstance(t, db), startInstance(t, db)
	interviewer, candidate := newClient(t), newClient(t)

	made := fetch(t, interviewer, http.MethodPost, a.base+"/rooms", "application/x-www-form-urlencoded",
		url.Values{"source": {"problem:async-refund"}}.Encode())
	var links [][]string
	for _, m := range enterLink.FindAllStringSubmatch(string(made), -1) {
		if len(links) == 0 || links[len(links)-1][2] != m[2] {
			links = append(links, m)
		}
	}
	if len(links) != 2 {
		t.Fatalf("the new room's page has %d links; want the interviewer's and the candidate's", len(links))
	}
	room := "/rooms/" + links[0][1]
	fetch(t, interviewer, http.MethodGet, a.base+room+"/enter?key="+links[0][2], "", "")
	fetch(t, candidate, http.MethodGet, b.base+room+"/enter?key="+links[1][2], "", "")
	page := fetch(t, candidate, http.MethodGet, b.base+room, "", "")
	clientID := pageAttr(t, page, "data-client-id")
	version, err := strconv.Atoi(pageAttr(t, page, "data-code-version"))
	if err != nil {
		t.Fatal(err)
	}
	m := textArea.FindSubmatch(page)
	if m == nil {
		t.Fatal("the candidate's page has no editor text")
	}
	// The editor counts UTF-16 code units; HTML drops a newline right
	// after <textarea>.
	length := len(utf16.Encode([]rune(strings.TrimPrefix(html.UnescapeString(string(m[1])), "\n"))))
	first := version + 1

	// type pushes one keystroke to B as the editor does.
	typeOne := func() {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"version": version, "updates": []any{
			map[string]any{"clientID": clientID, "changes": []any{length, []any{0, "x"}}}}})
		ans := fetch(t, candidate, http.MethodPost, b.base+room+"/code/0/push", "application/json", string(body))
		var ok struct{ OK bool }
		if json.Unmarshal(ans, &ok); !ok.OK {
			t.Fatalf("push answered %s", ans)
		}
		version++
		length++
	}
	seen := map[int]int{} // version -> deliveries
	var lastID int64
	// until reads the stream until it has delivered version v.
	until := func(events <-chan roomEvent, v int, where string) {
		t.Helper()
		for seen[v] == 0 {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("%s ended before version %d", where, v)
				}
				if ev.id != 0 && ev.id <= lastID {
					t.Fatalf("%s sent id %d after %d", where, ev.id, lastID)
				}
				if ev.id != 0 {
					lastID = ev.id
				}
				if ev.name == "code.update" {
					seen[ev.version]++
				}
			case <-time.After(15 * time.Second):
				t.Fatalf("%s did not deliver version %d within 15 s", where, v)
			}
		}
	}

	onA := follow(t, interviewer, a.base+room+"/events", 0)
	for range 3 {
		typeOne()
	}
	until(onA, version, "A's stream, of keystrokes pushed to B")

	// A stops: its stream ends, so the browser reconnects elsewhere.
	a.stop()
	select {
	case err := <-a.done:
		if err != nil {
			t.Fatalf("A's shutdown: %v", err)
		}
		a.done <- nil // for the cleanup
	case <-time.After(shutdownTimeout + 5*time.Second):
		t.Fatal("A did not stop: its open stream held it up")
	}
	for ev := range onA {
		if ev.name == "code.update" {
			seen[ev.version]++
		}
	}
	for range 2 {
		typeOne()
	}
	onB := follow(t, interviewer, b.base+room+"/events", lastID)
	until(onB, version, "B's stream, resumed after A's last id")
	for v := first; v <= version; v++ {
		if seen[v] != 1 {
			t.Errorf("version %d was delivered %d times; want once", v, seen[v])
		}
	}
	if t.Failed() {
		t.Logf("deliveries by version: %v", seen)
	}
}
