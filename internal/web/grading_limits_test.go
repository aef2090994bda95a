package web

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/clientaddr"
	"github.com/faultline-dev/faultline/internal/ratelimit"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// newBrowserFrom is a browser whose connections come from the loopback
// address from (any 127.0.0.0/8 address is this machine), and which sends
// forwardedFor as X-Forwarded-For when it is not empty.
func (ts *testServer) newBrowserFrom(t *testing.T, from, forwardedFor string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	var rt http.RoundTripper = &http.Transport{DialContext: dialer.DialContext}
	if forwardedFor != "" {
		rt = forwarding{rt, forwardedFor}
	}
	t.Cleanup(func() { rt.(interface{ CloseIdleConnections() }).CloseIdleConnections() })
	return &browser{t: t, ts: ts, client: &http.Client{Jar: jar, Transport: rt}}
}

type forwarding struct {
	http.RoundTripper
	for_ string
}

func (f forwarding) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-Forwarded-For", f.for_)
	return f.RoundTripper.RoundTrip(req)
}

func (f forwarding) CloseIdleConnections() {
	f.RoundTripper.(interface{ CloseIdleConnections() }).CloseIdleConnections()
}

// refusal decodes a refused Grade's JSON and checks it says when to retry,
// in the header and the body alike.
func refusal(t *testing.T, p page, status int, wantRetry int, wantMessage ...string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d (%s); want %d", p.status, p.body, status)
	}
	var got gradeRefused
	if err := json.Unmarshal([]byte(p.body), &got); err != nil {
		t.Fatalf("refusal %q: %v", p.body, err)
	}
	if h := p.header.Get("Retry-After"); h != strconv.Itoa(wantRetry) || got.RetryAfterS != wantRetry {
		t.Errorf("Retry-After %q, retry_after_s %d; want %d", h, got.RetryAfterS, wantRetry)
	}
	for _, m := range wantMessage {
		if !strings.Contains(got.Error, m) {
			t.Errorf("refusal %q does not say %q", got.Error, m)
		}
	}
}

// waitFor reads events until one named name; it fails the test when the
// stream ends first.
func (s *eventStream) waitFor(name string) event {
	s.t.Helper()
	for {
		ev := s.next()
		if ev.name == name {
			return ev
		}
		if ev.name != "progress" {
			s.t.Fatalf("event %q (%s) while waiting for %q", ev.name, ev.data, name)
		}
	}
}

func (f *fakeGrader) admittedKeys() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.admitted...)
}

// TestGradeLimitPerAddress checks that one address may have only so many
// gradings going, each refused one keeps its code and says when to retry,
// other addresses are not held up, and a place is given back at the end.
func TestGradeLimitPerAddress(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{}), retry: 7 * time.Second}
	ts := newGradingTestServer(t, g, func(c *Config) { c.GradesPerAddress = 2 })
	first, second, third := ts.newBrowser(t), ts.newBrowser(t), ts.newBrowser(t)
	firstRun := first.startGrade("package refund // FIRST")
	secondRun := second.startGrade("package refund // SECOND")

	refused := third.postCode("/problems/"+gradedSlug+"/grade", "package refund // THIRD", true)
	refusal(t, refused, http.StatusTooManyRequests, 7, "2 gradings from your network address", "Your code is saved", "in 7 s")
	plain := third.postCode("/problems/"+gradedSlug+"/grade", "package refund // THIRD-PLAIN", false)
	if plain.status != http.StatusTooManyRequests || plain.header.Get("Retry-After") != "7" ||
		!strings.Contains(plain.body, "grade it again in 7 s") {
		t.Errorf("plain refused Grade: %d, Retry-After %q", plain.status, plain.header.Get("Retry-After"))
	}
	third.get("/problems/"+gradedSlug).mustContain(t, "package refund // THIRD-PLAIN")

	elsewhere := ts.newBrowserFrom(t, "127.0.0.2", "")
	elsewhere.startGrade("package refund // ELSEWHERE")
	if keys := g.admittedKeys(); len(keys) != 3 || keys[0] != "127.0.0.1" || keys[2] != "127.0.0.2" {
		t.Errorf("admitted under keys %v; want the client addresses", keys)
	}

	close(g.gate) // every run may finish now
	first.events(firstRun.EventsURL).waitFor("report")
	second.events(secondRun.EventsURL).waitFor("report")
	third.startGrade("package refund // THIRD-AGAIN")
}

// TestGradeLimitTrustsOnlyNamedProxies checks that X-Forwarded-For moves a
// client to another address's limit only when its peer is a trusted proxy:
// a spoofed header from anyone else is ignored, so it lands in the same
// bucket.
func TestGradeLimitTrustsOnlyNamedProxies(t *testing.T) {
	tests := []struct {
		name    string
		trusted string
		second  int // the second client's Grade status
	}{
		{"untrusted peer: the header is ignored", "", http.StatusTooManyRequests},
		{"another trusted proxy does not make this peer one", "10.0.0.1", http.StatusTooManyRequests},
		{"trusted proxy: the header is the client", "127.0.0.1", http.StatusAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxies, err := clientaddr.Parse(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			g := &fakeGrader{report: failingReport(), gate: make(chan struct{}), retry: time.Second}
			defer close(g.gate)
			ts := newGradingTestServer(t, g, func(c *Config) { c.GradesPerAddress = 1; c.Proxies = proxies })
			ts.newBrowserFrom(t, "127.0.0.1", "203.0.113.1").startGrade("package refund // ONE")
			p := ts.newBrowserFrom(t, "127.0.0.1", "203.0.113.2").postCode("/problems/"+gradedSlug+"/grade", "package refund // TWO", true)
			if p.status != tt.second {
				t.Errorf("second client: status %d (%s); want %d", p.status, p.body, tt.second)
			}
		})
	}
}

// TestGradeRefusedWhenBusy checks that a pool that refuses the job answers
// 503 at once with its retry time, keeps the code, and gives the user's
// and the address's places back.
func TestGradeRefusedWhenBusy(t *testing.T) {
	g := &fakeGrader{report: failingReport(), admitErr: &sandbox.BusyError{RetryAfter: 4 * time.Second}}
	ts := newGradingTestServer(t, g, func(c *Config) { c.GradesPerAddress = 1 })
	b := ts.newBrowser(t)
	refusal(t, b.postCode("/problems/"+gradedSlug+"/grade", "package refund // BUSY", true),
		http.StatusServiceUnavailable, 4, "The grader is busy; try again in 4 s. Your code is saved.")
	plain := b.postCode("/problems/"+gradedSlug+"/grade", "package refund // BUSY-PLAIN", false)
	if plain.status != http.StatusServiceUnavailable || plain.header.Get("Retry-After") != "4" ||
		!strings.Contains(plain.body, "The grader is busy; try again in 4 s.") {
		t.Errorf("plain busy Grade: %d, Retry-After %q", plain.status, plain.header.Get("Retry-After"))
	}
	b.get("/problems/"+gradedSlug).mustContain(t, "package refund // BUSY-PLAIN")

	g.mu.Lock()
	g.admitErr = nil
	g.mu.Unlock()
	b.startGrade("package refund // NOT-BUSY") // neither the user's nor the address's place was kept
}

// TestNewIdentityLimit checks that new identities from one address are
// limited where their user is created: past the burst a new one is told
// when to retry (429, Retry-After), browsing still works, existing users
// are not affected, and the bucket refills with time.
func TestNewIdentityLimit(t *testing.T) {
	clock := &testClock{now: time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
	limiter := ratelimit.New(ratelimit.Rate{Burst: 2, PerSecond: 1.0 / 30}, clock.Now)
	ts := newGradingTestServer(t, &fakeGrader{report: failingReport()}, func(c *Config) { c.NewIdentities = limiter })
	save := func(b *browser, code string) page {
		return b.postCode("/problems/"+gradedSlug+"/code", code, true)
	}
	first, second, third := ts.newBrowser(t), ts.newBrowser(t), ts.newBrowser(t)
	for _, b := range []*browser{first, second} {
		if p := save(b, "package refund // MINE"); p.status != http.StatusOK {
			t.Fatalf("a new identity within the burst: status %d", p.status)
		}
	}
	p := save(third, "package refund // THIRD")
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") != "30" || !strings.Contains(p.body, "Try again in 30 s") {
		t.Errorf("a new identity past the burst: %d, Retry-After %q, %s", p.status, p.header.Get("Retry-After"), p.body)
	}
	refusal(t, third.postCode("/problems/"+gradedSlug+"/grade", "package refund // THIRD", true),
		http.StatusTooManyRequests, 30, "Try again in 30 s", "Your code was not saved; it is still in the editor.")
	if pg := third.get("/problems/" + gradedSlug); pg.status != http.StatusOK {
		t.Errorf("browsing as the refused identity: status %d", pg.status)
	}
	for range 3 {
		if p := save(first, "package refund // AGAIN"); p.status != http.StatusOK {
			t.Errorf("an existing identity: status %d", p.status)
		}
	}
	elsewhere := ts.newBrowserFrom(t, "127.0.0.2", "")
	if p := save(elsewhere, "package refund // ELSEWHERE"); p.status != http.StatusOK {
		t.Errorf("a new identity from another address: status %d", p.status)
	}

	clock.Advance(29 * time.Second)
	if p := save(third, "package refund // THIRD"); p.status != http.StatusTooManyRequests {
		t.Errorf("1 s before the refill: status %d", p.status)
	}
	clock.Advance(time.Second)
	if p := save(third, "package refund // THIRD"); p.status != http.StatusOK {
		t.Errorf("after the refill: status %d", p.status)
	}
	third.get("/problems/"+gradedSlug).mustContain(t, "package refund // THIRD")
}

// TestCheckLimitPerAddress checks that a Check counts against its
// address's gradings like a Grade, and is refused the same way.
func TestCheckLimitPerAddress(t *testing.T) {
	g := &fakeGrader{report: failingReport(), gate: make(chan struct{}), retry: 5 * time.Second}
	defer close(g.gate)
	ts := newGradingTestServer(t, g, func(c *Config) { c.GradesPerAddress = 1 })
	ts.newBrowser(t).startGrade("package refund // GRADING")
	other := ts.newBrowser(t)
	p := other.postCode("/problems/"+gradedSlug+"/check", "package refund // CHECKED", true)
	if p.status != http.StatusTooManyRequests || p.header.Get("Retry-After") != "5" || !strings.Contains(p.body, "check it again in 5 s") {
		t.Errorf("Check past the address's limit: %d, Retry-After %q, %s", p.status, p.header.Get("Retry-After"), p.body)
	}
	other.get("/problems/"+gradedSlug).mustContain(t, "package refund // CHECKED")
}
