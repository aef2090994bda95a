package web

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// Limits on a room's event streams. Each open stream holds a goroutine,
// a connection and its buffers, and wakes on every event of its room: at
// 8,000 streams from one candidate link the server used 1.04 GB and each
// keystroke cost 2.8 s of CPU (issue 26).
const (
	// maxStreamsPerLink is how many streams one link may hold open: a
	// person with the room open in a few tabs, and a reconnect or two
	// not yet noticed as over.
	maxStreamsPerLink = 8
	// maxStreamsPerAddress is how many one client address may hold,
	// across rooms: a panel behind one office address running several
	// screens at once, each with an interviewer and a candidate.
	maxStreamsPerAddress = 64
	// streamIdleClose ends a stream that has carried no event for this
	// long: the page's EventSource reconnects by itself and resumes from
	// its last event, and a client that vanished without closing its
	// connection (whose keep-alives the kernel still accepts) lets go.
	streamIdleClose = 10 * time.Minute
	// streamRetryAfter is what a refused stream is told to wait.
	streamRetryAfter = 30 * time.Second
)

// streamGate counts the open streams per link and per client address.
type streamGate struct {
	mu       sync.Mutex
	perLink  map[string]int
	perAddr  map[string]int
	maxLink  int
	maxAddr  int
	idle     time.Duration // live.WriterOptions.IdleClose of each stream
	keepLive time.Duration // live.WriterOptions.KeepAlive; 0: the default
}

func newStreamGate() *streamGate {
	return &streamGate{perLink: map[string]int{}, perAddr: map[string]int{},
		maxLink: maxStreamsPerLink, maxAddr: maxStreamsPerAddress, idle: streamIdleClose}
}

// enter admits a stream of link from addr, or says which cap refused it.
// A stream admitted must call leave once, when it ends.
func (g *streamGate) enter(link, addr string) (leave func(), refused string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.perLink[link] >= g.maxLink:
		return nil, fmt.Sprintf("This room's link already has %d live connections open (one per open tab of the room). Close a tab of the room, then reload this page.", g.maxLink)
	case g.perAddr[addr] >= g.maxAddr:
		return nil, fmt.Sprintf("Your network address already has %d live connections to rooms open. Close some tabs of rooms, then reload this page.", g.maxAddr)
	}
	g.perLink[link]++
	g.perAddr[addr]++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			if g.perLink[link]--; g.perLink[link] <= 0 {
				delete(g.perLink, link)
			}
			if g.perAddr[addr]--; g.perAddr[addr] <= 0 {
				delete(g.perAddr, addr)
			}
		})
	}, ""
}

// refuseStream answers a stream past a cap: 429, with when to try again.
func refuseStream(c echo.Context, why string) error {
	c.Response().Header().Set("Retry-After", fmt.Sprint(int(streamRetryAfter/time.Second)))
	return answered(codeError(c, http.StatusTooManyRequests, why))
}
