// Package pgtest gives tests a fresh PostgreSQL database each, on a
// throwaway cluster that the test process starts on first use: initdb and
// pg_ctl in a temporary directory, on a free loopback port, with no system
// service involved. The cluster is stopped and its directory removed when
// the test process ends, however it ends (a watcher process holds a pipe to
// it), so a test that panics or is killed leaves nothing running.
//
// Without PostgreSQL's binaries a test that asks for a database is skipped
// with the reason, except under CI=true, where it fails: CI installs
// Debian's postgresql, and a Postgres half that silently skipped would prove
// nothing. FAULTLINE_TEST_POSTGRES=postgres://... uses a running server
// instead (each test still gets a database of its own in it).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names a running server to use instead of a throwaway cluster.
// Its user must be allowed to create databases.
const EnvURL = "FAULTLINE_TEST_POSTGRES"

// EnvBin names the directory holding initdb, pg_ctl and postgres, when
// they are neither on PATH nor in Debian's /usr/lib/postgresql/N/bin.
const EnvBin = "FAULTLINE_PG_BIN"

var (
	startOnce sync.Once
	base      *url.URL // the server, with the maintenance database in its path
	startErr  error    // the cluster could not be started: a failure
	missing   string   // no PostgreSQL here: a skip (a failure under CI)

	createMu sync.Mutex
	seq      atomic.Int64
)

// URL returns the URL of a new, empty database that only this test uses,
// dropped when the test ends. The first call in a process starts the
// cluster (a second or two); later calls take milliseconds.
func URL(t testing.TB) string {
	t.Helper()
	startOnce.Do(start)
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pgtest: %s; CI runs the Postgres half of the suite, so PostgreSQL must be installed (.ci/deps.sh)", missing)
		}
		t.Skipf("pgtest: %s (install Debian's postgresql, or set %s)", missing, EnvURL)
	}
	if startErr != nil {
		t.Fatalf("pgtest: %v", startErr)
	}
	name := fmt.Sprintf("t%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, seq.Add(1))
	if err := admin(context.Background(), `CREATE DATABASE `+name); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		// FORCE ends the test's own connections that are still open
		// (a pool not closed, a server killed mid-test).
		if err := admin(context.Background(), `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	u := *base
	u.Path = "/" + name
	return u.String()
}

// admin runs one statement on the maintenance database. CREATE DATABASE
// copies template1 and fails while another session is connected to it, so
// these are serialised within the process.
func admin(ctx context.Context, stmt string) error {
	createMu.Lock()
	defer createMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base.String())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, stmt)
	return err
}

func start() {
	if s := os.Getenv(EnvURL); s != "" {
		u, err := url.Parse(s)
		if err != nil {
			startErr = fmt.Errorf("%s: %v", EnvURL, err)
			return
		}
		base = u
		return
	}
	bin, err := findBin()
	if err != nil {
		missing = err.Error()
		return
	}
	// A port found free may be taken before postgres binds it (another
	// test binary starting its own cluster): try a few.
	for try := 0; try < 4; try++ {
		var port int
		if port, err = freePort(); err != nil {
			break
		}
		if err = startCluster(bin, port); err == nil {
			return
		}
	}
	startErr = fmt.Errorf("start a throwaway cluster: %w", err)
}

// findBin looks for pg_ctl on PATH (Debian puts only wrappers there, which
// is why its versioned directory is searched too).
func findBin() (string, error) {
	if d := os.Getenv(EnvBin); d != "" {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err != nil {
			return "", fmt.Errorf("%s=%s holds no pg_ctl", EnvBin, d)
		}
		return d, nil
	}
	var dirs []string
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(found, func(i, j int) bool { return version(found[i]) > version(found[j]) })
	dirs = append(dirs, found...)
	for _, d := range dirs {
		ok := true
		for _, tool := range []string{"initdb", "pg_ctl", "postgres"} {
			if _, err := os.Stat(filepath.Join(d, tool)); err != nil {
				ok = false
			}
		}
		if ok {
			return d, nil
		}
	}
	return "", errors.New("no PostgreSQL binaries (initdb, pg_ctl, postgres) on PATH or in /usr/lib/postgresql/*/bin")
}

func version(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startCluster runs initdb and pg_ctl start. PostgreSQL refuses to run as
// root, so as root both run as the postgres user, which owns the directory.
func startCluster(bin string, port int) error {
	dir, err := os.MkdirTemp("", "faultline-pg-")
	if err != nil {
		return err
	}
	cred, err := credential()
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return err
		}
	}
	data := filepath.Join(dir, "data")
	run := func(name string, args ...string) error {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", name, err, out)
		}
		return nil
	}
	if err := run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"); err != nil {
		os.RemoveAll(dir)
		return err
	}
	// A test cluster trades durability for speed: its data dies with it.
	conf := fmt.Sprintf(`
listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
`, port, dir)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	if err := run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return fmt.Errorf("%v\nserver log:\n%s", err, log)
	}
	if err := watch(bin, data, dir, cred); err != nil {
		exec.Command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop").Run()
		os.RemoveAll(dir)
		return err
	}
	base = &url.URL{Scheme: "postgres", User: url.User("postgres"),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/postgres",
		RawQuery: "sslmode=disable"}
	return nil
}

// watch starts the process that stops the cluster when this one ends: it
// waits for the end of a pipe whose other end only this process holds,
// which the kernel closes on any exit, kill -9 included.
func watch(bin, data, dir string, cred *syscall.Credential) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	script := `cat >/dev/null; "$0/pg_ctl" -D "$1" -m immediate stop >/dev/null 2>&1; rm -rf "$2"`
	cmd := exec.Command("/bin/sh", "-c", script, bin, data, dir)
	cmd.Stdin = r
	// Its own process group: a test runner that kills the test's group
	// must not take the watcher down before it has cleaned up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return err
	}
	r.Close()
	go cmd.Wait()
	// Kept open for the life of the process; never written.
	keep = w
	return nil
}

var keep *os.File

func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the postgres user to run as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}
