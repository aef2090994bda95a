// Command storagebench reproduces two storage measurements against a real
// server binary on loopback, each with a fresh database in a temporary
// folder:
//
//	growth    one address writes from several loops at once for a fixed
//	          time, and it prints how much the database file and its WAL
//	          grew, and the WAL's size after a quiet period. -mode fresh
//	          (the default) saves 256 KiB of code under a fresh cookie per
//	          request; -mode answers submits 60 KiB answers under a few
//	          cookies, which a limit on new identities does not stop.
//	class     a class of 30 behind one address (one NAT), each with its
//	          own cookie, all pressing Grade at the start and then
//	          autosaving 10 KB of code every 3 s; it prints how many
//	          requests were refused (the write budget must refuse none).
//	practice  one user with 100 stored grade runs (each with a 256 KiB
//	          source and a real report) is viewed on My practice by 20
//	          clients at once; it prints the server's resident memory idle
//	          and at its peak.
//
// usage:
//
//	go run ./bench/storagebench growth   -server BIN [-mode fresh|answers] [-seconds 15] [-loops 4] [-quiet 12s] [-flags "-new-identities 0"]
//	go run ./bench/storagebench class    -server BIN [-people 30] [-every 3s] [-seconds 15]
//	go run ./bench/storagebench practice -server BIN [-runs 100] [-clients 20] [-views 5]
//
// BIN is a built server (go build -o BIN ./cmd/server), so the same script
// measures an older commit's binary side by side with the current one.
// Every loop is bounded in time and in count.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "modernc.org/sqlite"
)

const problem = "async-refund"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: storagebench growth|practice -server BIN [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "growth":
		err = growth(os.Args[2:])
	case "practice":
		err = practice(os.Args[2:])
	case "class":
		err = class(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q: want growth, class or practice", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "storagebench:", err)
		os.Exit(1)
	}
}

// server is one started server binary.
type server struct {
	cmd  *exec.Cmd
	base string
	db   string
	log  *os.File
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startServer(bin, dir, db string, extra ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	args := append([]string{"serve", "-addr", addr, "-db", db}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, base: "http://" + addr, db: db, log: log}
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
	return nil, errors.New("the server did not answer /healthz within 30 s; see " + log.Name())
}

func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
	s.log.Close()
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// procStatus reads a kB field (VmRSS, VmHWM) of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func growth(args []string) error {
	fs := flag.NewFlagSet("growth", flag.ContinueOnError)
	bin := fs.String("server", "", "server binary")
	seconds := fs.Int("seconds", 15, "how long to save")
	loops := fs.Int("loops", 4, "saving loops at once")
	quiet := fs.Duration("quiet", 12*time.Second, "quiet period before the WAL is measured again")
	maxSaves := fs.Int("max", 100_000, "most saves in all")
	mode := fs.String("mode", "fresh", "fresh: code under a fresh cookie each; answers: answers under -cookies cookies")
	cookies := fs.Int("cookies", 8, "answers mode: identities the loops share")
	extra := fs.String("flags", "", "more serve flags, space-separated")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *mode != "fresh" && *mode != "answers" {
		return fmt.Errorf("growth: -mode %q: want fresh or answers", *mode)
	}
	if *bin == "" {
		return errors.New("growth: -server is required")
	}
	dir, err := os.MkdirTemp("", "storagebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "faultline.db")
	s, err := startServer(*bin, dir, db, append([]string{"-graders", "0"}, strings.Fields(*extra)...)...)
	if err != nil {
		return err
	}
	defer s.stop()

	code := "package refund\n//" + strings.Repeat("x", 256<<10-len("package refund\n//"))
	body := url.Values{"code": {code}}.Encode()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *loops}}
	// One small save first, so the baseline includes the first user's rows.
	if _, err := save(client, s.base, "", "code=package+refund"); err != nil {
		return err
	}
	users := make([]string, *cookies)
	for i := range users {
		users[i] = fmt.Sprintf("%032x", i+1)
	}
	answer := url.Values{"answer": {strings.Repeat("word ", 60<<10/5)}}.Encode()
	db0, wal0 := fileSize(db), fileSize(db+"-wal")

	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		sent     atomic.Int64
		errs     atomic.Int64
	)
	deadline := time.Now().Add(time.Duration(*seconds) * time.Second)
	var peakWAL, peakSum atomic.Int64
	done := make(chan struct{})
	go func() { // sample the WAL's size: its peak is what a disk must hold
		for {
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
				wal := fileSize(db + "-wal")
				if wal > peakWAL.Load() {
					peakWAL.Store(wal)
				}
				if n := fileSize(db) + wal; n > peakSum.Load() {
					peakSum.Store(n)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	start := time.Now()
	for range *loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := sent.Add(1); time.Now().Before(deadline) && n <= int64(*maxSaves); n = sent.Add(1) {
				var (
					status int
					err    error
				)
				if *mode == "fresh" {
					status, err = save(client, s.base, "", body)
				} else {
					status, err = post(client, s.base+"/problems/idempotent-create-client/answer", users[n%int64(len(users))], answer)
				}
				if err != nil {
					errs.Add(1)
					continue
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(done)
	db1, wal1 := fileSize(db), fileSize(db+"-wal")
	time.Sleep(*quiet)
	db2, wal2 := fileSize(db), fileSize(db+"-wal")

	var codes []int
	for c := range statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	what := "a fresh cookie per save of 256 KiB of code"
	if *mode == "answers" {
		what = fmt.Sprintf("%d cookies submitting 60 KiB answers", *cookies)
	}
	fmt.Printf("server %s %s, %d loops for %.1f s, one address, %s\n", *bin, *extra, *loops, elapsed.Seconds(), what)
	for _, c := range codes {
		fmt.Printf("  status %d: %d\n", c, statuses[c])
	}
	if n := errs.Load(); n > 0 {
		fmt.Printf("  transport errors: %d\n", n)
	}
	grew := (db1 + wal1) - (db0 + wal0)
	fmt.Printf("db   %s -> %s\n", mib(db0), mib(db1))
	fmt.Printf("wal  %s -> %s (peak seen %s)\n", mib(wal0), mib(wal1), mib(peakWAL.Load()))
	fmt.Printf("growth db+wal: %s in %.1f s (%.1f MB/s)\n", mib(grew), elapsed.Seconds(), float64(grew)/1e6/elapsed.Seconds())
	fmt.Printf("after %s quiet: db %s, wal %s\n", *quiet, mib(db2), mib(wal2))
	peakGrew := max(peakSum.Load(), db1+wal1, db2+wal2) - (db0 + wal0)
	fmt.Printf("largest growth db+wal seen (sampled every 50 ms, and after the quiet): %s\n", mib(peakGrew))
	fmt.Printf("RESULT growth_mib=%.1f peak_growth_mib=%.1f wal_peak_mib=%.1f wal_after_quiet_mib=%.1f\n",
		float64(grew)/(1<<20), float64(peakGrew)/(1<<20), float64(peakWAL.Load())/(1<<20), float64(wal2)/(1<<20))
	return nil
}

// save posts one code save; without a cookie, the server makes a new
// identity for it, as a client throwing its cookies away would.
func save(client *http.Client, base, user, body string) (int, error) {
	return post(client, base+"/problems/"+problem+"/code", user, body)
}

// post sends a form as the script does, under the cookie user if any.
func post(client *http.Client, url, user, body string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if user != "" {
		req.AddCookie(&http.Cookie{Name: "faultline_user", Value: user})
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func practice(args []string) error {
	fs := flag.NewFlagSet("practice", flag.ContinueOnError)
	bin := fs.String("server", "", "server binary")
	runs := fs.Int("runs", 100, "grade runs stored for the user")
	clients := fs.Int("clients", 20, "concurrent viewers")
	views := fs.Int("views", 5, "views per client")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bin == "" {
		return errors.New("practice: -server is required")
	}
	dir, err := os.MkdirTemp("", "storagebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "faultline.db")

	// A real report of the reference solution, as the grader stores it.
	ref, err := filepath.Abs("content/problems/" + problem + "/reference/refund.go")
	if err != nil {
		return err
	}
	report, err := exec.Command(*bin, "grade", "-json", ref).Output()
	if err != nil && len(report) == 0 {
		return fmt.Errorf("grade the reference: %v", err)
	}
	refCode, err := os.ReadFile(ref)
	if err != nil {
		return err
	}
	source := string(refCode) + "\n//" + strings.Repeat("x", 256<<10-len(refCode)-3)

	// The first start creates the schema; the rows are then written
	// directly, in the schema both old and new binaries share.
	s, err := startServer(*bin, dir, db, "-graders", "0")
	if err != nil {
		return err
	}
	s.stop()
	user := strings.Repeat("ab", 16)
	if err := seedRuns(db, user, *runs, source, string(report)); err != nil {
		return err
	}
	s, err = startServer(*bin, dir, db, "-graders", "0")
	if err != nil {
		return err
	}
	defer s.stop()
	pid := s.cmd.Process.Pid
	client := &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *clients}}
	view := func() (int, time.Duration, error) {
		req, _ := http.NewRequest(http.MethodGet, s.base+"/practice", nil)
		req.AddCookie(&http.Cookie{Name: "faultline_user", Value: user})
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, err
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, 0, fmt.Errorf("GET /practice: %s", resp.Status)
		}
		return int(n), time.Since(t0), nil
	}
	size, _, err := view() // warm up: templates, the connection pool
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	idle := procStatus(pid, "VmRSS")
	hwm0 := procStatus(pid, "VmHWM")

	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				if n := procStatus(pid, "VmRSS"); n > peak.Load() {
					peak.Store(n)
				}
			}
		}
	}()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		times []time.Duration
		fail  atomic.Int64
	)
	start := time.Now()
	for range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range *views {
				_, d, err := view()
				if err != nil {
					fail.Add(1)
					continue
				}
				mu.Lock()
				times = append(times, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(done)
	hwm := procStatus(pid, "VmHWM")
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	med := time.Duration(0)
	if len(times) > 0 {
		med = times[len(times)/2]
	}
	fmt.Printf("server %s, a user with %d runs (source %s, report %s each), page %d bytes\n",
		*bin, *runs, mib(int64(len(source))), mib(int64(len(report))), size)
	fmt.Printf("%d clients x %d views in %.1f s, %d failed, median view %v\n", *clients, *views, elapsed.Seconds(), fail.Load(), med.Round(time.Millisecond))
	fmt.Printf("RSS idle %s, peak sampled %s, VmHWM %s (before the views %s)\n", mib(idle), mib(peak.Load()), mib(hwm), mib(hwm0))
	fmt.Printf("RESULT idle_mib=%.1f peak_mib=%.1f above_idle_mib=%.1f median_view_ms=%d\n",
		float64(idle)/(1<<20), float64(max(peak.Load(), hwm))/(1<<20), float64(max(peak.Load(), hwm)-idle)/(1<<20), med.Milliseconds())
	return nil
}

// seedRuns stores a user with runs finished grade runs of one problem.
func seedRuns(path, user string, runs int, source, report string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
	if err != nil {
		return err
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	if _, err := tx.Exec(`INSERT INTO users (id, created_at) VALUES (?, ?)`, user, now); err != nil {
		return fmt.Errorf("seed user: %w", err)
	}
	res, err := tx.Exec(`INSERT INTO attempts (user_id, kind, slug, created_at, updated_at) VALUES (?, 'problem', ?, ?, ?)`, user, problem, now, now)
	if err != nil {
		return fmt.Errorf("seed attempt: %w", err)
	}
	attempt, _ := res.LastInsertId()
	// Since issue 8 a run's source and report live in grade_run_files;
	// before, in grade_runs itself.
	var split int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'grade_run_files'`).Scan(&split); err != nil {
		return err
	}
	for i := range runs {
		at := now - int64(runs-i)*60_000
		cols, vals, args := "", "", []any{attempt, problem, at, at + 150}
		if split == 0 {
			cols, vals, args = ", source, report_json", ", ?, ?", append(args, source, report)
		}
		res, err := tx.Exec(`INSERT INTO grade_runs (attempt_id, problem, seed, status, started_at, finished_at,
			verdict, message, scenarios_passed, scenarios_total, invariants_held, invariants_total, defects_fixed, defects_total`+cols+`)
			VALUES (?, ?, 1, 'done', ?, ?, 'pass', '', 23, 23, 260, 260, 6, 6`+vals+`)`, args...)
		if err != nil {
			return fmt.Errorf("seed run %d: %w", i, err)
		}
		if split > 0 {
			id, _ := res.LastInsertId()
			// Stored as the old rows were, uncompressed: the same bytes
			// for both binaries to read.
			if _, err := tx.Exec(`INSERT INTO grade_run_files (run_id, source, report_json) VALUES (?, ?, ?)`, id, source, report); err != nil {
				return fmt.Errorf("seed run %d: %w", i, err)
			}
		}
	}
	return tx.Commit()
}

func class(args []string) error {
	fs := flag.NewFlagSet("class", flag.ContinueOnError)
	bin := fs.String("server", "", "server binary")
	people := fs.Int("people", 30, "people behind the one address")
	every := fs.Duration("every", 3*time.Second, "autosave interval")
	seconds := fs.Int("seconds", 15, "how long they type")
	size := fs.Int("size", 10_000, "bytes of code each autosave sends")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bin == "" {
		return errors.New("class: -server is required")
	}
	dir, err := os.MkdirTemp("", "storagebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := startServer(*bin, dir, filepath.Join(dir, "faultline.db"), "-graders", "0")
	if err != nil {
		return err
	}
	defer s.stop()
	// Real Go code, so form encoding expands it as it does a person's.
	ref, err := os.ReadFile("content/problems/" + problem + "/reference/refund.go")
	if err != nil {
		return err
	}
	code := strings.Repeat(string(ref), *size/len(ref)+1)[:*size]
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *people}}
	var (
		mu       sync.Mutex
		statuses = map[string]int{}
		wg       sync.WaitGroup
	)
	count := func(what string, status int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			statuses[what+" error"]++
			return
		}
		statuses[fmt.Sprintf("%s %d", what, status)]++
	}
	deadline := time.Now().Add(time.Duration(*seconds) * time.Second)
	for i := range *people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("%032x", 1000+i)
			status, err := post(client, s.base+"/problems/"+problem+"/grade", user, url.Values{"code": {code}}.Encode())
			count("grade", status, err)
			// Spread the first saves over the interval, as people type.
			time.Sleep(time.Duration(i) * *every / time.Duration(*people))
			for n := 0; time.Now().Before(deadline); n++ {
				edited := code[:len(code)-8] + fmt.Sprintf("%08d", n)
				status, err := save(client, s.base, user, url.Values{"code": {edited}}.Encode())
				count("save", status, err)
				time.Sleep(*every)
			}
		}()
	}
	wg.Wait()
	var keys []string
	for k := range statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	refused := 0
	fmt.Printf("server %s: %d people behind one address, Grade at once, then %d-byte autosaves every %v for %d s\n",
		*bin, *people, *size, *every, *seconds)
	for _, k := range keys {
		fmt.Printf("  %s: %d\n", k, statuses[k])
		if strings.HasSuffix(k, " 429") {
			refused += statuses[k]
		}
	}
	fmt.Printf("RESULT refused=%d\n", refused)
	return nil
}
