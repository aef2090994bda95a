package sandbox

import (
	"context"
	"testing"
)

// TestPoolPrestart checks Prestart's one spare takes the first job, that
// no other is started after it (a process grading one job would only
// waste it), that a second Prestart while one waits starts none, and
// that Close kills one no job took.
func TestPoolPrestart(t *testing.T) {
	pool := NewPool(testRunner("echo", Limits{}), 2, 0)
	defer pool.Close()
	pool.Prestart()
	pool.Prestart()
	pid := waitForSpares(t, pool, 1)[0]
	out, err := pool.Submit(context.Background(), []byte("job"), nil)
	if err != nil || !out.OK() || !out.Warm {
		t.Fatalf("Submit after Prestart: %v %+v (it should go to the spare)", err, out)
	}
	pool.starters.Wait()
	if n := pool.Spares(); n != 0 {
		t.Errorf("%d spares after the job; Prestart keeps none", n)
	}
	if !processGone(pid) {
		t.Errorf("the spare %d lives on after its job", pid)
	}

	pool.Prestart()
	pid = waitForSpares(t, pool, 1)[0]
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	if !processGone(pid) {
		t.Errorf("Close left the unused spare %d", pid)
	}
}

// TestPoolPrestartJobFirst checks a job submitted while Prestart's spare is
// still starting waits for it and runs there, rather than starting a
// second child while the first one is thrown away.
func TestPoolPrestartJobFirst(t *testing.T) {
	pool := NewPool(testRunner("echo", Limits{}), 1, 0)
	defer pool.Close()
	pool.Prestart()
	out, err := pool.Submit(context.Background(), []byte("job"), nil)
	if err != nil || !out.OK() || !out.Warm {
		t.Fatalf("Submit at once after Prestart: %v %+v; want it run by the prestarted spare", err, out)
	}
	pool.starters.Wait()
	if n := pool.Spares(); n != 0 {
		t.Errorf("%d spares left after the job; the prestarted one should have taken it", n)
	}
}
