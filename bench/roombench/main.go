// Command roombench measures live screens under load against a real server
// binary on loopback, with a fresh database in a temporary folder: N rooms
// at once, in each a candidate typing into the shared editor at -rate
// keystrokes a second and an interviewer following the room's stream.
//
// Each room is made and entered as a browser does it: POST /rooms, the two
// links opened (each sets its role's cookie), the room's page read for the
// editor's client id, version and starting text. Then, as the page's
// collab transport does (web/static/room.js, web/editor/src/collab.js):
//
//   - each keystroke is one update (one character inserted) pushed to
//     /rooms/ID/code/0/push; while a push is in flight the next keystrokes
//     wait and go together in the next push; a conflict pulls and rebases
//     over what was pulled; a failed push waits 500 ms, pulls and retries;
//   - with -cursors (the default) the candidate's selection goes with
//     each push, on its last update, as the editor sends it since the
//     cursor rides with the push; with -cursor-in-push=false it is posted
//     to /cursor 120 ms after the typing settles instead, as the editor
//     did before (at 5 keys a second, once a keystroke: a second write),
//     which is how builds from before that change are measured;
//   - the interviewer's page follows /rooms/ID/events (SSE, gzip as a
//     browser asks for it), and so, with -candidate-stream (the default),
//     does the candidate's; a dropped stream reconnects with
//     Last-Event-ID after the server's retry delay.
//
// Every room's clients come from their own loopback addresses (the
// interviewer from 127.1.x.y, the candidate from 127.2.x.y), as every room
// in production has its own people: the per-address limits (rooms made,
// new identities, the write budget) apply to each as they would, none of
// them raised or turned off.
//
// The figure is the delay from a push request being sent to the
// interviewer's stream delivering that update (code.update with its
// version), for every keystroke sent in the measured window (after
// -warmup); "key" is the same from the keystroke itself, which adds the
// wait behind a push in flight. Also: the server's resident memory idle
// and at the end, its Go heap (from GODEBUG=gctrace=1), its CPU and this
// process's CPU over the window, the load average, and every error.
//
// usage:
//
//	go run ./bench/roombench -server BIN [-rooms 50] [-seconds 20] [-warmup 3s] [-rate 5] [-cursors=true] [-cursor-in-push=true] [-candidate-stream=true] [-flags "..."]
//
// It prints one RESULT line of name=value pairs (bench/rooms.sh makes the
// table). Every loop is bounded in time and count.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The browser's timings this mimics (web/editor/src/collab.js).
const (
	selectionDelay = 120 * time.Millisecond
	retryDelay     = 500 * time.Millisecond
	maxPushUpdates = 100 // internal/collab.MaxPushUpdates
	streamRetry    = 2 * time.Second
)

const source = "problem:async-refund"

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "roombench:", err)
		os.Exit(1)
	}
}

type options struct {
	bin             string
	rooms           int
	seconds         int
	warmup          time.Duration
	rate            float64
	cursors         bool
	cursorInPush    bool
	candidateStream bool
	flags           string
	grace           time.Duration
	gzip            bool
	db              string
	instances       int
	idleRooms       int
	flood           int
	first           int // setUp: the first room's index, for its addresses
}

func run(args []string) error {
	var o options
	fs := flag.NewFlagSet("roombench", flag.ContinueOnError)
	fs.StringVar(&o.bin, "server", "", "server binary (go build -o BIN ./cmd/server)")
	fs.IntVar(&o.rooms, "rooms", 50, "rooms at once")
	fs.IntVar(&o.seconds, "seconds", 20, "the measured window, after the warm-up")
	fs.DurationVar(&o.warmup, "warmup", 3*time.Second, "typing before the window opens")
	fs.Float64Var(&o.rate, "rate", 5, "keystrokes a second per candidate")
	fs.BoolVar(&o.cursors, "cursors", true, "send the candidate's selection, as the editor does")
	fs.BoolVar(&o.cursorInPush, "cursor-in-push", true, "the selection rides on each push's last update; false: posted to /cursor after each keystroke settles, as before")
	fs.BoolVar(&o.candidateStream, "candidate-stream", true, "the candidate's page follows the stream too, as it does in a browser")
	fs.StringVar(&o.flags, "flags", "", "more serve flags, space-separated")
	fs.BoolVar(&o.gzip, "gzip", true, "ask for gzip, as browsers do (the server then compresses each stream)")
	fs.DurationVar(&o.grace, "grace", 3*time.Second, "how long deliveries are awaited after the typing stops")
	fs.StringVar(&o.db, "db", "", "the servers' -db; empty: a fresh SQLite file (a postgres:// URL names a database the caller made empty)")
	fs.IntVar(&o.instances, "instances", 1, "server instances on -db; with 2 each room's interviewer is on the first and its candidate on the second, so every keystroke crosses instances")
	fs.IntVar(&o.idleRooms, "idle-rooms", 0, "more rooms whose interviewer and candidate only follow their streams (two open streams each), made before the typing starts")
	fs.IntVar(&o.flood, "flood", 0, "more streams opened at once from the first room's candidate link, one address: how many the server takes and how many it refuses")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case o.bin == "":
		return errors.New("-server is required")
	case o.rooms < 1 || o.rooms > 250*250:
		return fmt.Errorf("-rooms %d: want 1 to %d", o.rooms, 250*250)
	case o.seconds < 1 || o.seconds > 600:
		return fmt.Errorf("-seconds %d: want 1 to 600", o.seconds)
	case o.rate <= 0 || o.rate > 50:
		return fmt.Errorf("-rate %g: want more than 0, at most 50", o.rate)
	case o.instances < 1 || o.instances > 2:
		return fmt.Errorf("-instances %d: want 1 or 2", o.instances)
	case o.idleRooms < 0 || o.rooms+o.idleRooms > 250*250 || o.flood < 0 || o.flood > 20000:
		return fmt.Errorf("-idle-rooms %d, -flood %d: want rooms and idle rooms at most %d in all, a flood of at most 20,000", o.idleRooms, o.flood, 250*250)
	case o.instances == 2 && !strings.HasPrefix(o.db, "postgres"):
		return errors.New("-instances 2 needs a postgres:// -db: SQLite serves one instance")
	}

	dir, err := os.MkdirTemp("", "roombench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := o.db
	if db == "" {
		db = filepath.Join(dir, "faultline.db")
	}
	var servers []*server
	defer func() {
		for _, s := range servers {
			s.stop()
		}
	}()
	for i := range o.instances {
		s, err := startServer(o.bin, dir, i, append([]string{"-db", db, "-graders", "0"}, strings.Fields(o.flags)...)...)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	s := servers[0]
	candidateBase := servers[len(servers)-1].base
	rssOf := func(field string) int64 {
		var sum int64
		for _, s := range servers {
			sum += procStatus(s.pid(), field)
		}
		return sum
	}
	cpuOf := func() float64 {
		var sum float64
		for _, s := range servers {
			sum += procCPU(s.pid())
		}
		return sum
	}
	idleRSS := rssOf("VmRSS")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	setupStart := time.Now()
	rooms, err := setUp(ctx, s.base, candidateBase, o)
	if err != nil {
		return err
	}
	setup := time.Since(setupStart)
	for _, r := range rooms {
		r.interviewer.follow(ctx, r, true)
		if o.candidateStream {
			r.candidate.follow(ctx, r, false)
		}
	}
	// Every stream connected before the typing starts, so the first
	// keystrokes are not measured against a stream still being opened.
	if err := waitStreams(rooms, o.candidateStream, 30*time.Second); err != nil {
		return err
	}
	// The idle rooms' streams, open through the window: what many open
	// streams cost the typing rooms.
	var idle []*room
	if o.idleRooms > 0 {
		idleOpts := o
		idleOpts.rooms, idleOpts.first = o.idleRooms, o.rooms
		if idle, err = setUp(ctx, s.base, candidateBase, idleOpts); err != nil {
			return err
		}
		for _, r := range idle {
			r.interviewer.follow(ctx, r, false)
			r.candidate.follow(ctx, r, false)
		}
		if err := waitStreams(idle, true, 2*time.Minute); err != nil {
			return err
		}
	}
	floodOK, floodRefused, floodOther := flood(ctx, rooms[0], o.flood)
	openRSS := rssOf("VmRSS")
	openFDs := 0
	for _, s := range servers {
		openFDs += fdCount(s.pid())
	}

	stopTyping := make(chan struct{})
	var typing sync.WaitGroup
	for _, s := range servers {
		s.heap.reset()
	}
	start := time.Now()
	windowFrom, windowTo := start.Add(o.warmup), start.Add(o.warmup+time.Duration(o.seconds)*time.Second)
	for _, r := range rooms {
		typing.Add(1)
		go func() { defer typing.Done(); r.typeAway(ctx, o, stopTyping) }()
	}
	time.Sleep(time.Until(windowFrom))
	cpu0, self0, wall0 := cpuOf(), selfCPU(), time.Now()
	load0 := loadAvg()
	time.Sleep(time.Until(windowTo))
	cpu1, self1, wall1 := cpuOf(), selfCPU(), time.Now()
	load1 := loadAvg()
	rss, hwm := rssOf("VmRSS"), rssOf("VmHWM")
	var heapLive, heapPeak float64
	for _, s := range servers {
		live, peak := s.heap.get()
		heapLive, heapPeak = heapLive+live, heapPeak+peak
	}
	close(stopTyping)
	typing.Wait()
	time.Sleep(o.grace)
	var idleC counters
	for _, r := range idle {
		idleC.add(&r.counters)
	}

	// Join what was sent in the window with what the interviewers'
	// streams delivered.
	var fromPush, fromKey, rtt []time.Duration
	var sent, missing int
	for _, r := range rooms {
		r.mu.Lock()
		for _, a := range r.answered {
			if !a.at.Before(windowFrom) && a.at.Before(windowTo) {
				rtt = append(rtt, a.d)
			}
		}
		for v, sr := range r.sent {
			if sr.key.Before(windowFrom) || !sr.key.Before(windowTo) {
				continue
			}
			sent++
			at, ok := r.delivered[v]
			if !ok {
				missing++
				continue
			}
			fromPush = append(fromPush, at.Sub(sr.push))
			fromKey = append(fromKey, at.Sub(sr.key))
		}
		r.mu.Unlock()
	}
	wall := wall1.Sub(wall0).Seconds()
	var c counters
	for _, r := range rooms {
		c.add(&r.counters)
	}
	pairs := []string{
		"rooms=" + strconv.Itoa(o.rooms),
		"instances=" + strconv.Itoa(o.instances),
		"rate=" + strconv.FormatFloat(o.rate, 'g', -1, 64),
		"cursors=" + strconv.FormatBool(o.cursors),
		"cursor_in_push=" + strconv.FormatBool(o.cursorInPush),
		"candidate_stream=" + strconv.FormatBool(o.candidateStream),
		"gzip=" + strconv.FormatBool(o.gzip),
		"window_s=" + strconv.Itoa(o.seconds),
		"keystrokes=" + strconv.Itoa(sent),
		"per_second=" + f1(float64(sent)/float64(o.seconds)),
		"p50_ms=" + ms(percentile(fromPush, 50)),
		"p90_ms=" + ms(percentile(fromPush, 90)),
		"p99_ms=" + ms(percentile(fromPush, 99)),
		"max_ms=" + ms(percentile(fromPush, 100)),
		"key_p50_ms=" + ms(percentile(fromKey, 50)),
		"key_p99_ms=" + ms(percentile(fromKey, 99)),
		"push_p50_ms=" + ms(percentile(rtt, 50)),
		"push_p99_ms=" + ms(percentile(rtt, 99)),
		"undelivered=" + strconv.Itoa(missing),
		"push_errors=" + strconv.FormatInt(c.pushErrors.Load(), 10),
		"conflicts=" + strconv.FormatInt(c.conflicts.Load(), 10),
		"cursor_errors=" + strconv.FormatInt(c.cursorErrors.Load(), 10),
		"stream_drops=" + strconv.FormatInt(c.streamDrops.Load(), 10),
		"statuses=" + c.statusList(),
		"rss_idle_mib=" + mib(idleRSS),
		"rss_open_mib=" + mib(openRSS),
		"rss_mib=" + mib(rss),
		"hwm_mib=" + mib(hwm),
		"heap_live_mib=" + f1(heapLive),
		"heap_peak_mib=" + f1(heapPeak),
		"server_cpu_pct=" + f1(100*(cpu1-cpu0)/wall),
		"bench_cpu_pct=" + f1(100*(self1-self0)/wall),
		"load1=" + load0 + "/" + load1,
		"server_warnings=" + strconv.FormatInt(warnings(servers), 10),
		"setup_s=" + f1(setup.Seconds()),
		"idle_rooms=" + strconv.Itoa(o.idleRooms),
		"open_streams=" + strconv.Itoa(openStreams(rooms, o.candidateStream)+2*len(idle)+floodOK),
		"server_fds=" + strconv.Itoa(openFDs),
		"idle_stream_drops=" + strconv.FormatInt(idleC.streamDrops.Load(), 10),
		"flood_ok=" + strconv.Itoa(floodOK),
		"flood_429=" + strconv.Itoa(floodRefused),
		"flood_other=" + strconv.Itoa(floodOther),
	}
	fmt.Println("RESULT " + strings.Join(pairs, " "))
	return nil
}

// server is one started server binary.
type server struct {
	cmd    *exec.Cmd
	base   string
	log    *os.File
	heap   *heapTrace
	done   chan struct{} // the log has been read to its end
	logged atomic.Int64  // warnings and errors in the log
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// warnings is how many warnings and errors the servers logged.
func warnings(servers []*server) int64 {
	var n int64
	for _, s := range servers {
		n += s.logged.Load()
	}
	return n
}

// startServer starts the i-th instance, logging to its own file in dir.
func startServer(bin, dir string, i int, extra ...string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	logFile, err := os.Create(filepath.Join(dir, fmt.Sprintf("server-%d.log", i)))
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "-addr", addr}, extra...)
	cmd := exec.Command(bin, args...)
	// gctrace prints the heap at every collection on stderr: the Go heap
	// without adding an endpoint to the server.
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	cmd.Stdout = logFile
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, base: "http://" + addr, log: logFile, heap: &heapTrace{}, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "gc ") {
				s.heap.parse(line)
				continue // thousands of lines: not worth the log
			}
			fmt.Fprintln(logFile, line)
			if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
				if s.logged.Add(1) <= 5 {
					fmt.Fprintln(os.Stderr, "server:", line)
				}
			}
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.stop()
	return nil, errors.New("the server did not answer /healthz within 30 s; see " + logFile.Name())
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.done
	s.cmd.Wait()
	s.log.Close()
}

// heapTrace keeps what gctrace says of the heap: "A->B->C MB" is the heap
// when a collection started, when it ended, and what was live.
type heapTrace struct {
	mu         sync.Mutex
	live, peak float64
}

var gcHeap = regexp.MustCompile(`(\d+)->(\d+)->(\d+) MB`)

func (h *heapTrace) parse(line string) {
	m := gcHeap.FindStringSubmatch(line)
	if m == nil {
		return
	}
	start, _ := strconv.ParseFloat(m[1], 64)
	live, _ := strconv.ParseFloat(m[3], 64)
	h.mu.Lock()
	h.live = live
	h.peak = max(h.peak, start, live)
	h.mu.Unlock()
}

func (h *heapTrace) reset() {
	h.mu.Lock()
	h.peak = 0
	h.mu.Unlock()
}

func (h *heapTrace) get() (live, peak float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.live, h.peak
}

// counters are one room's errors, summed at the end.
type counters struct {
	pushErrors, conflicts, cursorErrors, streamDrops atomic.Int64
	mu                                               sync.Mutex
	statuses                                         map[int]int // answers other than 200 and 201
}

func (c *counters) status(code int) {
	c.mu.Lock()
	if c.statuses == nil {
		c.statuses = map[int]int{}
	}
	c.statuses[code]++
	c.mu.Unlock()
}

func (c *counters) add(o *counters) {
	c.pushErrors.Add(o.pushErrors.Load())
	c.conflicts.Add(o.conflicts.Load())
	c.cursorErrors.Add(o.cursorErrors.Load())
	c.streamDrops.Add(o.streamDrops.Load())
	o.mu.Lock()
	defer o.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.statuses == nil {
		c.statuses = map[int]int{}
	}
	for k, v := range o.statuses {
		c.statuses[k] += v
	}
}

func (c *counters) statusList() string {
	if len(c.statuses) == 0 {
		return "none"
	}
	var out []string
	for k, v := range c.statuses {
		out = append(out, fmt.Sprintf("%d:%d", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// participant is one browser: its own address, cookies and connections.
type participant struct {
	client    *http.Client // requests
	stream    *http.Client // the event stream, with no overall timeout
	connected atomic.Bool
}

func newParticipant(local net.IP, gzip bool) *participant {
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: local}, Timeout: 10 * time.Second}
	// Six connections to the site at most, the stream's included, as a
	// browser holds over HTTP/1.1: the cursor reports are not waited for
	// by the page, so this is what bounds them when the server is slow.
	tr := &http.Transport{DialContext: dialer.DialContext, MaxConnsPerHost: 6, MaxIdleConnsPerHost: 6,
		IdleConnTimeout: time.Minute, DisableCompression: !gzip}
	return &participant{
		client: &http.Client{Jar: jar, Transport: tr, Timeout: 30 * time.Second,
			// The enter page refreshes rather than redirects; creating a
			// room answers 201. Nothing here follows a redirect.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		stream: &http.Client{Jar: jar, Transport: tr},
	}
}

// sentRec is when the keystroke that became a version was typed and when
// the push carrying it was sent.
type sentRec struct{ key, push time.Time }

// pushRTT is one push's round trip, from sending it to its answer.
type pushRTT struct {
	at time.Time
	d  time.Duration
}

// room is one room's two participants and what was measured in it.
type room struct {
	id, base    string // base: the room on the interviewer's instance
	candBase    string // the same room on the candidate's
	interviewer *participant
	candidate   *participant
	clientID    string
	version     int // the candidate's editor's synced version at the start
	length      int // and its text's length, in UTF-16 code units
	lastSeq     map[*participant]int64

	counters
	mu        sync.Mutex
	answered  []pushRTT         // each push's round trip
	sent      map[int]sentRec   // version -> its keystroke
	delivered map[int]time.Time // version -> when the interviewer's stream had it
}

var enterLink = regexp.MustCompile(`/rooms/([A-Za-z0-9_-]+)/enter\?key=([A-Za-z0-9_-]+)`)

func setUp(ctx context.Context, base, candidateBase string, o options) ([]*room, error) {
	rooms := make([]*room, o.rooms)
	errs := make(chan error, o.rooms)
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r, err := newRoom(ctx, base, candidateBase, o.first+i, o.gzip)
				if err != nil {
					errs <- fmt.Errorf("room %d: %w", i, err)
					continue
				}
				rooms[i] = r
			}
		}()
	}
	for i := range o.rooms {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	return rooms, nil
}

// addr is the i-th room's address for a role: 127.<role>.x.y.
func addr(role byte, i int) net.IP { return net.IPv4(127, role, byte(i/250), byte(i%250+1)) }

func newRoom(ctx context.Context, base, candidateBase string, i int, gzip bool) (*room, error) {
	r := &room{interviewer: newParticipant(addr(1, i), gzip), candidate: newParticipant(addr(2, i), gzip),
		lastSeq: map[*participant]int64{}, sent: map[int]sentRec{}, delivered: map[int]time.Time{}}
	status, loc, body, err := doWhere(ctx, r.interviewer.client, "POST", base+"/rooms", "application/x-www-form-urlencoded",
		url.Values{"source": {source}}.Encode())
	if err != nil {
		return nil, err
	}
	switch status {
	case http.StatusCreated: // builds before the links page: the links are in the answer
	case http.StatusSeeOther: // the maker's browser now holds the interviewer's key: on to the links page
		if status, body, err = do(ctx, r.interviewer.client, "GET", base+loc, "", ""); err != nil || status != http.StatusOK {
			return nil, fmt.Errorf("the links page %s: %d %v %.300s", loc, status, err, body)
		}
	default:
		return nil, fmt.Errorf("POST /rooms answered %d: %.300s", status, body)
	}
	// The page shows the interviewer's link first (as a field and as a
	// link), then the candidate's.
	var links [][]string
	for _, m := range enterLink.FindAllStringSubmatch(string(body), -1) {
		if len(links) == 0 || links[len(links)-1][2] != m[2] {
			links = append(links, m)
		}
	}
	if len(links) != 2 || links[0][1] != links[1][1] {
		return nil, fmt.Errorf("the new room's page has not two links to one room: %.300s", body)
	}
	r.id, r.base, r.candBase = links[0][1], base+"/rooms/"+links[0][1], candidateBase+"/rooms/"+links[0][1]
	for j, p := range []*participant{r.interviewer, r.candidate} {
		if status, body, err := do(ctx, p.client, "GET", r.baseOf(p)+"/enter?key="+links[j][2], "", ""); err != nil || status != http.StatusOK {
			return nil, fmt.Errorf("opening link %d: %d %v %.200s", j, status, err, body)
		}
		status, page, err := do(ctx, p.client, "GET", r.baseOf(p), "", "")
		if err != nil || status != http.StatusOK {
			return nil, fmt.Errorf("the room's page: %d %v %.200s", status, err, page)
		}
		seq, err := strconv.ParseInt(attr(page, "data-last-seq"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("the room's page has no data-last-seq")
		}
		r.lastSeq[p] = seq
		if p == r.candidate {
			r.clientID = attr(page, "data-client-id")
			if r.version, err = strconv.Atoi(attr(page, "data-code-version")); err != nil || r.clientID == "" {
				return nil, fmt.Errorf("the candidate's page has no editor")
			}
			text, ok := textarea(page)
			if !ok {
				return nil, fmt.Errorf("the candidate's page has no code")
			}
			r.length = utf16Len(text)
		}
	}
	return r, nil
}

// baseOf is the room's address on p's instance.
func (r *room) baseOf(p *participant) string {
	if p == r.candidate {
		return r.candBase
	}
	return r.base
}

func attr(page []byte, name string) string {
	m := regexp.MustCompile(regexp.QuoteMeta(name) + `="([^"]*)"`).FindSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(string(m[1]))
}

// textarea is the shared editor's text as the browser reads it: the
// HTML parser drops the newline right after <textarea>.
func textarea(page []byte) (string, bool) {
	i := bytes.Index(page, []byte(`id="room-code-textarea"`))
	if i < 0 {
		return "", false
	}
	rest := page[i:]
	open := bytes.IndexByte(rest, '>')
	end := bytes.Index(rest, []byte("</textarea>"))
	if open < 0 || end < open {
		return "", false
	}
	text := html.UnescapeString(string(rest[open+1 : end]))
	text = strings.TrimPrefix(text, "\n")
	return strings.ReplaceAll(text, "\r\n", "\n"), true
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

func do(ctx context.Context, c *http.Client, method, u, contentType, body string) (int, []byte, error) {
	status, _, data, err := doWhere(ctx, c, method, u, contentType, body)
	return status, data, err
}

// doWhere is do, with the answer's Location too.
func doWhere(ctx context.Context, c *http.Client, method, u, contentType, body string) (int, string, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "text/html")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Location"), data, err
}

func waitStreams(rooms []*room, candidates bool, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		all := true
		for _, r := range rooms {
			if !r.interviewer.connected.Load() || (candidates && !r.candidate.connected.Load()) {
				all = false
				break
			}
		}
		if all {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("the room streams did not all connect within " + within.String())
}

// follow reads p's stream of r as EventSource does, reconnecting with
// Last-Event-ID after a drop; the interviewer's records deliveries.
func (p *participant) follow(ctx context.Context, r *room, record bool) {
	go func() {
		last := r.lastSeq[p]
		first := true
		for ctx.Err() == nil {
			if !first {
				r.streamDrops.Add(1)
				select {
				case <-ctx.Done():
					return
				case <-time.After(streamRetry):
				}
			}
			first = false
			req, err := http.NewRequestWithContext(ctx, "GET", r.baseOf(p)+"/events", nil)
			if err != nil {
				return
			}
			if last > 0 {
				req.Header.Set("Last-Event-ID", strconv.FormatInt(last, 10))
			}
			req.Header.Set("Accept", "text/event-stream")
			resp, err := p.stream.Do(req)
			if err != nil {
				continue
			}
			if resp.StatusCode != http.StatusOK {
				r.status(resp.StatusCode)
				resp.Body.Close()
				continue
			}
			p.connected.Store(true)
			last = readEvents(resp.Body, last, func(name string, data []byte) {
				if !record || name != "code.update" {
					return
				}
				at := time.Now()
				var d struct {
					Version int `json:"version"`
				}
				if json.Unmarshal(data, &d) == nil {
					r.mu.Lock()
					if _, seen := r.delivered[d.Version]; !seen {
						r.delivered[d.Version] = at
					}
					r.mu.Unlock()
				}
			})
			resp.Body.Close()
		}
	}()
}

// readEvents parses an SSE body, calling on for each event, and returns
// the last id seen.
func readEvents(body io.Reader, last int64, on func(name string, data []byte)) int64 {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var name string
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if data != nil {
				on(name, data)
			}
			name, data = "", nil
		case bytes.HasPrefix(line, []byte("id: ")):
			if n, err := strconv.ParseInt(string(line[4:]), 10, 64); err == nil {
				last = n
			}
		case bytes.HasPrefix(line, []byte("event: ")):
			name = string(line[7:])
		case bytes.HasPrefix(line, []byte("data: ")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, line[6:]...)
		}
	}
	return last
}

// typeAway is the candidate typing until stop: one keystroke each
// 1/rate seconds from a random phase, pushed as the editor pushes.
func (r *room) typeAway(ctx context.Context, o options, stop <-chan struct{}) {
	every := time.Duration(float64(time.Second) / o.rate)
	var (
		mu      sync.Mutex
		pending []time.Time // keystrokes not yet pushed
		synced  = r.version
		cursor  *time.Timer
	)
	kick := make(chan struct{}, 1)
	pusherDone := make(chan struct{})
	go func() { // the editor's push loop: one push in flight at most
		defer close(pusherDone)
		length := r.length
		for {
			select {
			case <-kick:
			case <-stop:
				return
			}
			for {
				mu.Lock()
				n := min(len(pending), maxPushUpdates)
				keys := append([]time.Time(nil), pending[:n]...)
				mu.Unlock()
				if n == 0 {
					break
				}
				base := synced
				ok, newLen, newBase := r.push(ctx, base, length, keys, o.cursors && o.cursorInPush)
				if ok {
					mu.Lock()
					pending = pending[n:]
					synced = base + n
					mu.Unlock()
					length += n
					continue
				}
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				synced = newBase
				mu.Unlock()
				length = newLen
			}
		}
	}()
	report := func() {
		mu.Lock()
		v := synced
		pos := r.length + (v - r.version)
		mu.Unlock()
		cur, _ := json.Marshal(map[string]any{"item": 0, "clientID": r.clientID, "name": "Candidate", "colour": 1,
			"version": v, "anchor": pos, "head": pos})
		status, _, err := do(ctx, r.candidate.client, "POST", r.candBase+"/cursor", "application/x-www-form-urlencoded",
			url.Values{"cursor": {string(cur)}}.Encode())
		if err != nil || status != http.StatusSeeOther && status != http.StatusOK {
			r.cursorErrors.Add(1)
			if status != 0 {
				r.status(status)
			}
		}
	}
	phase := time.Duration(rand.Int64N(int64(every)))
	select {
	case <-time.After(phase):
	case <-stop:
		return
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		mu.Lock()
		pending = append(pending, time.Now())
		mu.Unlock()
		select {
		case kick <- struct{}{}:
		default:
		}
		if o.cursors && !o.cursorInPush {
			if cursor == nil {
				cursor = time.AfterFunc(selectionDelay, report)
			} else {
				cursor.Reset(selectionDelay)
			}
		}
		select {
		case <-tick.C:
		case <-stop:
			if cursor != nil {
				cursor.Stop()
			}
			<-pusherDone
			return
		}
	}
}

// push sends one push of keys (each one character at the end of a text of
// length) on base. On success it records each version's times; otherwise
// it pulls, as the editor does, and returns the version and length to
// rebase on.
func (r *room) push(ctx context.Context, base, length int, keys []time.Time, withCursor bool) (ok bool, newLen, newBase int) {
	ups := make([]map[string]any, len(keys))
	for i := range keys {
		ups[i] = map[string]any{"clientID": r.clientID, "changes": []any{length + i, []any{0, "x"}}}
	}
	if withCursor {
		// The cursor after the last character typed, in the text the push
		// leaves.
		end := length + len(keys)
		ups[len(ups)-1]["selection"] = map[string]any{"anchor": end, "head": end, "name": "Candidate", "colour": 1}
	}
	body, _ := json.Marshal(map[string]any{"version": base, "updates": ups})
	req, err := http.NewRequestWithContext(ctx, "POST", r.candBase+"/code/0/push", bytes.NewReader(body))
	if err != nil {
		return false, length, base
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	sent := time.Now()
	// Recorded before the answer: the stream may deliver first.
	r.mu.Lock()
	for i, k := range keys {
		r.sent[base+i+1] = sentRec{key: k, push: sent}
	}
	r.mu.Unlock()
	forget := func() {
		r.mu.Lock()
		for i := range keys {
			delete(r.sent, base+i+1)
		}
		r.mu.Unlock()
	}
	resp, err := r.candidate.client.Do(req)
	r.mu.Lock()
	r.answered = append(r.answered, pushRTT{at: sent, d: time.Since(sent)})
	r.mu.Unlock()
	var ans struct {
		OK       bool   `json:"ok"`
		Conflict bool   `json:"conflict"`
		Version  int    `json:"version"`
		Error    string `json:"error"`
	}
	if err == nil {
		err = json.NewDecoder(resp.Body).Decode(&ans)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			r.status(resp.StatusCode)
			err = fmt.Errorf("push answered %d: %s", resp.StatusCode, ans.Error)
		}
	}
	switch {
	case err == nil && ans.OK:
		return true, 0, 0
	case err == nil && ans.Conflict:
		r.conflicts.Add(1)
	default:
		r.pushErrors.Add(1)
		time.Sleep(retryDelay)
	}
	forget()
	newLen, newBase = r.pullLength(ctx, base, length)
	return false, newLen, newBase
}

// pullLength pulls the updates after base and returns the text's length
// and version after them: what the editor rebases its own updates over.
func (r *room) pullLength(ctx context.Context, base, length int) (int, int) {
	status, body, err := do(ctx, r.candidate.client, "GET", r.candBase+"/code/0/pull?since="+strconv.Itoa(base), "", "")
	if err != nil || status != http.StatusOK {
		if status != 0 {
			r.status(status)
		}
		return length, base
	}
	var ans struct {
		Updates []struct {
			Changes json.RawMessage `json:"changes"`
		} `json:"updates"`
		Version int `json:"version"`
	}
	if json.Unmarshal(body, &ans) != nil {
		return length, base
	}
	for _, u := range ans.Updates {
		length = lengthAfter(u.Changes, length)
	}
	return length, base + len(ans.Updates)
}

// lengthAfter is a change set's document length after it: what it keeps
// and what it inserts (lines joined by line breaks).
func lengthAfter(changes json.RawMessage, before int) int {
	var parts []json.RawMessage
	if json.Unmarshal(changes, &parts) != nil {
		return before
	}
	n := 0
	for _, p := range parts {
		var keep int
		if json.Unmarshal(p, &keep) == nil {
			n += keep
			continue
		}
		var elems []json.RawMessage
		if json.Unmarshal(p, &elems) != nil || len(elems) == 0 {
			return before
		}
		for j, e := range elems[1:] {
			var line string
			json.Unmarshal(e, &line)
			n += utf16Len(line)
			if j > 0 {
				n++
			}
		}
	}
	return n
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return -1
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func ms(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return f1(float64(d) / float64(time.Millisecond))
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func mib(n int64) string { return f1(float64(n) / (1 << 20)) }

// procStatus reads a kB field (VmRSS, VmHWM) of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			if f := strings.Fields(line); len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// procCPU is a process's user and system CPU seconds, from /proc/PID/stat
// (in clock ticks of 1/100 s, the Linux default USER_HZ).
func procCPU(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields after it do not.
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100
}

func selfCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "-"
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return "-"
}

// flood opens n streams at once from r's candidate link, from the
// candidate's one address, and keeps those the server takes open until
// ctx ends: ok were taken, refused answered 429, other anything else.
func flood(ctx context.Context, r *room, n int) (ok, refused, other int) {
	if n == 0 {
		return 0, 0, 0
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	// A client of its own, with the candidate's cookies and address, so
	// the candidate's six connections stay theirs.
	jar := r.candidate.client.Jar
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: addr(2, 0)}, Timeout: 10 * time.Second}
	c := &http.Client{Jar: jar, Transport: &http.Transport{DialContext: dialer.DialContext, MaxConnsPerHost: n}}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequestWithContext(ctx, "GET", r.candBase+"/events", nil)
			if err != nil {
				return
			}
			req.Header.Set("Accept", "text/event-stream")
			resp, err := c.Do(req)
			mu.Lock()
			switch {
			case err != nil:
				other++
			case resp.StatusCode == http.StatusOK:
				ok++
			case resp.StatusCode == http.StatusTooManyRequests:
				refused++
			default:
				other++
			}
			mu.Unlock()
			if err != nil {
				return
			}
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
				return
			}
			go func() { io.Copy(io.Discard, resp.Body); resp.Body.Close() }()
		}()
	}
	wg.Wait()
	return ok, refused, other
}

// openStreams counts the typing rooms' streams.
func openStreams(rooms []*room, candidates bool) int {
	n := len(rooms)
	if candidates {
		n *= 2
	}
	return n
}

// fdCount is how many file descriptors pid holds open.
func fdCount(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}
