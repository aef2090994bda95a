package pgtest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Each test gets an empty database of its own: what one writes, another
// does not see, and the database is gone after the test.
func TestDatabasesAreSeparateAndDropped(t *testing.T) {
	ctx := context.Background()
	var first string
	t.Run("first", func(t *testing.T) {
		first = URL(t)
		conn, err := pgx.Connect(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, `CREATE TABLE marker (n int); INSERT INTO marker VALUES (1)`); err != nil {
			t.Fatal(err)
		}
	})
	if first == "" {
		t.Skip("no PostgreSQL")
	}
	second := URL(t)
	if second == first {
		t.Fatalf("two tests got the same database %s", first)
	}
	conn, err := pgx.Connect(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE tablename = 'marker'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("the second database holds the first one's table")
	}
	var exists bool
	name := first[strings.LastIndex(first, "/")+1 : strings.Index(first, "?")]
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Fatalf("database %s outlived its test", name)
	}
}

// The cluster goes away with the process that started it, even when that
// process is killed: the helper below is this test binary run again, which
// starts a cluster, prints its URL and is killed.
func TestClusterStopsWithItsProcess(t *testing.T) {
	if os.Getenv("PGTEST_CHILD") == "1" {
		u := URL(t)
		os.Stdout.WriteString(u + "\n")
		select {} // killed by the parent
	}
	if _, err := findBin(); err != nil || os.Getenv(EnvURL) != "" {
		t.Skip("needs a throwaway cluster")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClusterStopsWithItsProcess$", "-test.v")
	cmd.Env = append(os.Environ(), "PGTEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var u string
	lines := bufio.NewScanner(out)
	for u == "" && lines.Scan() {
		if l := lines.Text(); strings.HasPrefix(l, "postgres://") {
			u = l
		}
	}
	if u == "" {
		t.Fatalf("the child printed no URL: %v", lines.Err())
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatalf("the child's cluster does not answer: %v", err)
	}
	conn.Close(ctx)
	cmd.Process.Kill()
	cmd.Wait()
	for i := 0; i < 100; i++ {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			return
		}
		c.Close(ctx)
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the cluster at %s still answers 10 s after its process was killed", u)
}
