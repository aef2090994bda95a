// Command gradecost measures the work around a grade (issue 25), side by
// side in one run, for the async-refund problem's reference:
//
//   - in-process: the grade alone, graded in this process as the grading
//     child grades it (interpreted.RunJob in a bubble), CPU per grade;
//   - child: one grading child of -bin run by hand, the job on its stdin,
//     as a server's pool starts it (prlimit aside): its whole life's CPU
//     (start-up, package init, the grade, its exit) and the bytes it sends
//     back on fd 3;
//   - web: -bin serving, graded through HTTP by one user, one Grade at a
//     time to the end of its event stream; CPU per grade is the server's
//     user+sys and its children's, reaped or living (/proc/PID/stat): all
//     the CPU its children used while the grades ran, a spare's start
//     included (a child kept for the same person's next grade is counted
//     as it works, so its start is shared by the grades it serves);
//   - server grade: `BIN grade -referee=false FILE`, the whole process
//     with its child, wall and CPU;
//   - go build: the compile-and-run route, whole processes too: `go build`
//     of a native driver that imports the submission (changed every
//     iteration, so it is compiled and linked) and grades it through the
//     same engine, then the driver's run.
//
// With -before BIN2 (another build of cmd/server, e.g. main's), its child,
// web and server-grade figures are taken in the same rounds, interleaved.
// Figures are medians over the rounds; the ratios the issue sets targets
// for are web CPU to in-process CPU (at most 1.5) and server grade to go
// build, wall and CPU (at most 0.2). bench/gradecost.sh builds and runs it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/bubble"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

const problem = "async-refund"

func main() {
	bin := flag.String("bin", "", "the server binary measured (required)")
	before := flag.String("before", "", "another server binary measured beside it")
	rounds := flag.Int("rounds", 5, "rounds; each takes every measure once")
	perRound := flag.Int("grades", 8, "grades per round through the web and in-process")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "gradecost: -bin is required")
		os.Exit(2)
	}
	cat, err := problems.Load(content.FS)
	if err != nil {
		fail(err)
	}
	p, ok := cat.Problem(problem)
	if !ok || p.Code == nil {
		fail(fmt.Errorf("no problem %s", problem))
	}
	job := grading.KitJob(p.Code, p.Code.Reference, 1, nil)
	job.Seeds = grading.DefaultSeeds
	jobJSON, err := json.Marshal(job)
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "gradecost")
	if err != nil {
		fail(err)
	}
	cleanups = append(cleanups, func() { os.RemoveAll(work) })
	file := filepath.Join(work, "refund.go")
	if err := os.WriteFile(file, []byte(p.Code.Reference), 0o644); err != nil {
		fail(err)
	}
	bins := []string{*bin}
	names := []string{"after"}
	if *before != "" {
		bins = append(bins, *before)
		names = append(names, "before")
	}
	// This process interprets the shipped reference only, the code a
	// grading child would be given: trusted, so graded here as in one.
	interpreted.MarkGradingChild()
	// InProcess ends the process when the body returns.
	bubble.InProcess(func(b faultsim.Bubble) {
		defer os.RemoveAll(work)
		m := measures{}
		route, err := newGoBuildRoute(p.Code.Reference)
		if err != nil {
			fail(err)
		}
		defer route.close()
		cleanups = append(cleanups, route.close)
		servers := make([]*server, len(bins))
		for i, bn := range bins {
			if servers[i], err = startServer(bn, work, names[i]); err != nil {
				fail(err)
			}
			defer servers[i].stop()
			cleanups = append(cleanups, servers[i].stop)
		}
		inProcess(b, job, 2) // warm: the interpreter's first compiles
		for round := range *rounds {
			m.add("in-process CPU ms/grade", inProcess(b, job, *perRound))
			for i, bn := range bins {
				cpu, bytes, err := childAlone(bn, jobJSON)
				if err != nil {
					fail(err)
				}
				m.add(names[i]+": child CPU ms (whole life)", cpu)
				m.add(names[i]+": child reply KB", float64(bytes)/1000)
				own, children, err := servers[i].grades(p.Code.Reference, *perRound)
				if err != nil {
					fail(err)
				}
				m.add(names[i]+": web CPU ms/grade", own+children)
				m.add(names[i]+": web, the server's own", own)
				m.add(names[i]+": web, its children's", children)
				wall, cpu, err := serverGrade(bn, file)
				if err != nil {
					fail(err)
				}
				m.add(names[i]+": server grade wall ms", wall)
				m.add(names[i]+": server grade CPU ms", cpu)
			}
			wall, cpu, err := route.run(round)
			if err != nil {
				fail(err)
			}
			m.add("go build route wall ms", wall)
			m.add("go build route CPU ms", cpu)
			fmt.Fprintf(os.Stderr, "round %d of %d done\n", round+1, *rounds)
		}
		m.print(os.Stdout)
		in := m.median("in-process CPU ms/grade")
		fmt.Println()
		for _, n := range names {
			fmt.Printf("%-7s web CPU / in-process CPU        %.2f  (target at most 1.5)\n", n+":", m.median(n+": web CPU ms/grade")/in)
			fmt.Printf("%-7s server grade / go build, wall   %.3f (target at most 0.2)\n", n+":", m.median(n+": server grade wall ms")/m.median("go build route wall ms"))
			fmt.Printf("%-7s server grade / go build, CPU    %.3f\n", n+":", m.median(n+": server grade CPU ms")/m.median("go build route CPU ms"))
		}
	})
}

// cleanups undo what a failed run leaves behind: fail exits at once.
var cleanups []func()

func fail(err error) {
	for _, c := range cleanups {
		c()
	}
	fmt.Fprintln(os.Stderr, "gradecost:", err)
	os.Exit(1)
}

// measures keeps every round's figure of each measure, in first-seen order.
type measures struct {
	order []string
	vals  map[string][]float64
}

func (m *measures) add(name string, v float64) {
	if m.vals == nil {
		m.vals = map[string][]float64{}
	}
	if _, ok := m.vals[name]; !ok {
		m.order = append(m.order, name)
	}
	m.vals[name] = append(m.vals[name], v)
}

func (m *measures) median(name string) float64 {
	s := slices.Clone(m.vals[name])
	slices.Sort(s)
	return s[len(s)/2]
}

func (m *measures) print(w io.Writer) {
	fmt.Fprintf(w, "%-38s %9s   %s\n", "measure", "median", "every round")
	for _, n := range m.order {
		var each []string
		for _, v := range m.vals[n] {
			each = append(each, strconv.FormatFloat(v, 'f', 1, 64))
		}
		fmt.Fprintf(w, "%-38s %9.1f   %s\n", n, m.median(n), strings.Join(each, " "))
	}
}

// cpuNow is this process's CPU time, every thread, user and system.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// kits are the grading child's (cmd/server's gradingKits).
var kits = []faultsim.Kit{createclient.Kit{}, refund.Kit{}}

// inProcess grades job n times in this process, as a grading child does
// after its start-up (without writing its lines), and returns the CPU per
// grade.
func inProcess(b faultsim.Bubble, job faultsim.Job, n int) float64 {
	cpu0 := cpuNow()
	for range n {
		rep, err := interpreted.RunJob(context.Background(), kits, job, b, nil)
		if err != nil || rep.Status != faultsim.StatusPass {
			fail(fmt.Errorf("the reference graded in-process: %v %+v", err, rep))
		}
	}
	return ms(cpuNow()-cpu0) / float64(n)
}

// childAlone runs one grading child of bin with job on its stdin and
// returns its CPU (its whole life) and the bytes it wrote on fd 3. The
// environment is this tree's pool's (sandbox's childEnv and what
// grading.NewChildRunner adds), without prlimit, for either binary.
func childAlone(bin string, job []byte) (cpu float64, n int, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return 0, 0, err
	}
	defer r.Close()
	cmd := exec.Command(bin, "__grade-child")
	cmd.Env = append([]string{"GOMAXPROCS=2", "GOMEMLIMIT=805306368", "GOTRACEBACK=none"}, grading.NewChildRunner(sandbox.Limits{}, nil).Env...)
	cmd.Stdin = bytes.NewReader(job)
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		return 0, 0, err
	}
	w.Close()
	reply, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		return 0, 0, fmt.Errorf("the grading child: %v", err)
	}
	if !bytes.Contains(reply, []byte(`"status":"pass"`)) {
		return 0, 0, fmt.Errorf("the grading child did not pass the reference: %.300s", reply)
	}
	return ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()), len(reply), nil
}

// serverGrade runs `bin grade -referee=false file`: the whole process and
// its child (wait4's rusage holds the children it reaped).
func serverGrade(bin, file string) (wall, cpu float64, err error) {
	cmd := exec.Command(bin, "grade", "-referee=false", file)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "PASS") {
		return 0, 0, fmt.Errorf("server grade: %v\n%.500s", err, out)
	}
	return ms(time.Since(t0)), ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()), nil
}

// server is a running server binary.
type server struct {
	cmd    *exec.Cmd
	url    string
	client *http.Client
}

func startServer(bin, work, name string) (*server, error) {
	cmd := exec.Command(bin, "serve", "-addr", "127.0.0.1:0", "-db", filepath.Join(work, name+".db"), "-referee=false")
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd}
	listening := regexp.MustCompile(`url=(http://\S+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(logs.String()); m != nil {
			jar, _ := cookiejar.New(nil)
			s.url, s.client = m[1], &http.Client{Jar: jar}
			// The warm spares start.
			time.Sleep(500 * time.Millisecond)
			return s, nil
		}
	}
	s.stop()
	return nil, fmt.Errorf("%s did not start:\n%s", bin, logs.String())
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// cpu is the server's own CPU and its children's (/proc/PID/stat's
// utime+stime; the reaped children's cutime+cstime and the living ones'
// utime+stime), in clock ticks. The living ones count since a server may
// keep a grading child for the same person's next grade: the difference
// of two readings is all the CPU its children used in between.
func (s *server) cpu() (own, children int64, err error) {
	v, err := statTimes(s.cmd.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	own, children = v[0]+v[1], v[2]+v[3]
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == s.cmd.Process.Pid {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // ended meanwhile: reaped, or soon counted as such
		}
		f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
		if ppid, _ := strconv.Atoi(f[4-3]); ppid != s.cmd.Process.Pid {
			continue
		}
		if cv, err := statTimes(pid); err == nil {
			children += cv[0] + cv[1] + cv[2] + cv[3]
		}
	}
	return own, children, nil
}

// statTimes is utime, stime, cutime and cstime of process pid.
func statTimes(pid int) (v [4]int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return v, err
	}
	// The fields after the command's closing parenthesis, from state (3).
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	for i, field := range []int{14, 15, 16, 17} {
		if v[i], err = strconv.ParseInt(f[field-3], 10, 64); err != nil {
			return v, err
		}
	}
	return v, nil
}

// clockTicks is USER_HZ, what /proc/PID/stat counts in.
const clockTicks = 100

// grades grades code n times, one after the other, to the end of each
// run's event stream, and returns the CPU per grade of the server itself
// and of its children.
func (s *server) grades(code string, n int) (own, children float64, err error) {
	own0, children0, err := s.cpu()
	if err != nil {
		return 0, 0, err
	}
	for range n {
		if err := s.gradeOnce(code); err != nil {
			return 0, 0, err
		}
	}
	// The last child is reaped just after its report is streamed.
	time.Sleep(100 * time.Millisecond)
	own1, children1, err := s.cpu()
	if err != nil {
		return 0, 0, err
	}
	perGrade := func(ticks int64) float64 { return float64(ticks) * 1000 / clockTicks / float64(n) }
	return perGrade(own1 - own0), perGrade(children1 - children0), nil
}

// gradeOnce presses Grade as the page's script does and follows the run's
// events to its final one, which must be a passing report.
func (s *server) gradeOnce(code string) error {
	req, _ := http.NewRequest(http.MethodPost, s.url+"/problems/"+problem+"/grade", strings.NewReader(url.Values{"code": {code}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	var run struct {
		EventsURL string `json:"events_url"`
	}
	err = json.NewDecoder(resp.Body).Decode(&run)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("Grade: status %d, %v", resp.StatusCode, err)
	}
	resp, err = s.client.Get(s.url + run.EventsURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 4<<20), 4<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && name != "progress" && name != "":
			if name != "report" || !strings.Contains(line, `"verdict":"pass"`) {
				return fmt.Errorf("the reference's grade ended with %s: %.300s", name, line)
			}
			return nil
		}
	}
	return fmt.Errorf("the event stream ended without a final event: %v", sc.Err())
}

// goBuildRoute is the compile-and-run route: a native driver in a folder
// of the module (it imports the engine's internal packages) that grades
// the submission, built with the go tool and run.
type goBuildRoute struct {
	dir, pkg, bin, src string
}

// nativeDriver grades the submission natively through the same engine
// and the refund kit's built-in scenarios, at a user's grade's seeds.
const nativeDriver = `package main

import (
	"context"
	"fmt"
	"os"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/bubble"
	"github.com/faultline-dev/faultline/internal/faultsim/faultsimtest"
	"github.com/faultline-dev/faultline/internal/kits/refund"
	submission "github.com/faultline-dev/faultline/bench/gradecost/%s/refund"
)

func main() {
	bubble.InProcess(func(b faultsim.Bubble) {
		rep, err := refund.Grade(context.Background(), faultsimtest.Native{Entry: submission.RefundMoney}, refund.Scenarios(refund.Builtin()), b, faultsim.Options{Seeds: %d})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "native: %%s %%d\n", rep.Status, len(rep.Scenarios))
	})
}
`

func newGoBuildRoute(src string) (*goBuildRoute, error) {
	dir, err := os.MkdirTemp("bench/gradecost", "native")
	if err != nil {
		return nil, fmt.Errorf("run from the repository's root: %w", err)
	}
	r := &goBuildRoute{dir: dir, pkg: "./" + dir, bin: filepath.Join(dir, "driver"), src: src}
	if err := os.MkdirAll(filepath.Join(dir, "refund"), 0o755); err != nil {
		return nil, err
	}
	driver := fmt.Sprintf(nativeDriver, filepath.Base(dir), grading.DefaultSeeds)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(driver), 0o644); err != nil {
		return nil, err
	}
	// Fill the build cache: the first build compiles the engine.
	_, _, err = r.run(-1)
	return r, err
}

func (r *goBuildRoute) close() { os.RemoveAll(r.dir) }

// run builds the driver with a submission new to the go tool (a new
// declaration, which a comment would not be) and runs it: wall and CPU of
// both whole processes, the compiler and linker the go command waited for
// included.
func (r *goBuildRoute) run(i int) (wall, cpu float64, err error) {
	changed := r.src + fmt.Sprintf("\nvar submissionStamp = %d\n", i)
	if err := os.WriteFile(filepath.Join(r.dir, "refund", "refund.go"), []byte(changed), 0o644); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	build := exec.Command("go", "build", "-o", r.bin, r.pkg)
	if out, err := build.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("go build: %v\n%s", err, out)
	}
	run := exec.Command(r.bin)
	out, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "native: pass") {
		return 0, 0, fmt.Errorf("the native driver: %v\n%s", err, out)
	}
	wall = ms(time.Since(t0))
	cpu = ms(build.ProcessState.UserTime() + build.ProcessState.SystemTime() + run.ProcessState.UserTime() + run.ProcessState.SystemTime())
	return wall, cpu, nil
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}
