package web_test

// BenchmarkRoomRunGrowth measures what one address adds to the database by
// pressing rooms' Run for 15 s (making a new room after every 20 runs),
// with the default write budget and a grader that answers at once with a
// report of about 400 KiB (a log-heavy run): the database and its WAL's
// growth, and the runs taken and refused. Run it once:
//
//	go test -run '^$' -bench BenchmarkRoomRunGrowth -benchtime 1x ./internal/web
//
// On main at 2d79d58 (a Run charged 1 KiB, no per-address place): 284 runs
// taken, 125 MiB in 15 s; charged what it stores: 25 runs, 13.9 MiB (the
// write budget's bound is 13.5 MiB plus the WAL).

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
	"github.com/faultline-dev/faultline/internal/web"
)

type growthGrader struct{}

func (growthGrader) Admit(string) (*sandbox.Ticket, error) { return nil, nil }
func (growthGrader) RetryAfter(string) time.Duration       { return time.Second }
func (growthGrader) Plan(string) (grading.Plan, bool)      { return grading.Plan{}, true }
func (growthGrader) GradeAdmitted(context.Context, *sandbox.Ticket, grading.Request, func(gradewire.ScenarioReport)) (*gradewire.Report, error) {
	return &gradewire.Report{Status: gradewire.StatusFail, Message: "x", Diagnostics: []gradewire.Diagnostic{},
		Summary:   gradewire.Summary{ScenariosTotal: 1, Defects: []gradewire.DefectStatus{}},
		Scenarios: []gradewire.ScenarioReport{{Name: "s", Status: gradewire.StatusFail, Output: strings.Repeat("log line\n", 400<<10/9)}}}, nil
}

func BenchmarkRoomRunGrowth(b *testing.B) {
	t := b
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, err := storage.Open(context.Background(), filepath.Join(dir, "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	broker := live.NewInProcess()
	svc, err := rooms.New(rooms.Config{Store: store, Catalog: cat, Publisher: broker, Grader: growthGrader{}, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	app, err := web.New(web.Config{Catalog: cat, Store: store, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Rooms: svc, Broker: broker,
		Grader: growthGrader{}, WriteRate: web.DefaultWriteRate})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(app)
	defer ts.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path, cookie, form string) *http.Response {
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Origin", ts.URL)
		if cookie != "" {
			req.AddCookie(&http.Cookie{Name: "fl_room", Value: cookie})
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	size := func() int64 {
		var n int64
		for _, f := range []string{"g.db", "g.db-wal"} {
			if st, err := os.Stat(filepath.Join(dir, f)); err == nil {
				n += st.Size()
			}
		}
		return n
	}
	before := size()
	ok, refused := 0, 0
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		resp := post("/rooms", "", url.Values{"source": {"problem:async-refund"}}.Encode())
		var cookie string
		for _, c := range resp.Cookies() {
			if c.Name == "fl_room" {
				cookie = c.Value
			}
		}
		id := strings.TrimSuffix(strings.TrimPrefix(resp.Header.Get("Location"), "/rooms/"), "/links")
		if cookie == "" {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		for i := 0; i < 20 && time.Now().Before(deadline); i++ {
			r := post("/rooms/"+id+"/run", cookie, "")
			if r.StatusCode == 200 {
				ok++
			} else {
				refused++
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	svc.Close(context.Background())
	b.ReportMetric(float64(size()-before)/(1<<20), "MiB/15s")
	b.ReportMetric(float64(ok), "runs/15s")
	b.ReportMetric(float64(refused), "refused/15s")
}
