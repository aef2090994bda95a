package web

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/clientaddr"
	"github.com/faultline-dev/faultline/internal/ratelimit"
	"github.com/faultline-dev/faultline/internal/storage"
)

// newBudgetApp is the application with a write budget of burst bytes that
// never refills (its clock stands still).
func newBudgetApp(t *testing.T, trusted string, burst float64) (*Server, *storage.Store) {
	t.Helper()
	proxies, err := clientaddr.Parse(trusted)
	if err != nil {
		t.Fatal(err)
	}
	app, store := newTestApp(t, Config{Catalog: gradingCatalog(), Proxies: proxies})
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	app.writeRate = ratelimit.Rate{Burst: burst, PerSecond: 1 << 10}
	app.writes = ratelimit.New(app.writeRate, func() time.Time { return now })
	return app, store
}

// saveFrom posts code as an autosave from the TCP peer peer, with an
// X-Forwarded-For of xff when not empty and the cookie user when not
// empty (else the server makes a new identity).
func saveFrom(app *Server, peer, xff, user, code string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/problems/"+gradedSlug+"/code", strings.NewReader(url.Values{"code": {code}}.Encode()))
	req.RemoteAddr = peer + ":40000"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	if user != "" {
		req.AddCookie(&http.Cookie{Name: userCookie, Value: user})
	}
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	return rec
}

func TestWriteBudgetPerAddress(t *testing.T) {
	big := "package refund\n//" + strings.Repeat("x", 200<<10)
	type save struct{ peer, xff string }
	tests := []struct {
		name    string
		trusted string
		saves   []save
		want    []int
	}{
		{"one address under fresh cookies", "",
			[]save{{"192.0.2.1", ""}, {"192.0.2.1", ""}, {"192.0.2.1", ""}},
			[]int{200, 200, 429}},
		{"another address has a budget of its own", "",
			[]save{{"192.0.2.1", ""}, {"192.0.2.1", ""}, {"192.0.2.9", ""}, {"192.0.2.1", ""}},
			[]int{200, 200, 200, 429}},
		{"a spoofed X-Forwarded-For from an untrusted peer gets no fresh budget", "",
			[]save{{"192.0.2.1", "198.51.100.1"}, {"192.0.2.1", "198.51.100.2"}, {"192.0.2.1", "198.51.100.3"}},
			[]int{200, 200, 429}},
		{"a peer not in the trusted list is not believed either", "10.0.0.1",
			[]save{{"192.0.2.1", "198.51.100.1"}, {"192.0.2.1", "198.51.100.2"}, {"192.0.2.1", "198.51.100.3"}},
			[]int{200, 200, 429}},
		{"behind a trusted proxy each client has its own budget", "192.0.2.1",
			[]save{{"192.0.2.1", "198.51.100.1"}, {"192.0.2.1", "198.51.100.2"}, {"192.0.2.1", "198.51.100.3"}, {"192.0.2.1", "198.51.100.1"}},
			[]int{200, 200, 200, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Room for two saves of big and a little more, never three.
			app, _ := newBudgetApp(t, tt.trusted, 2*float64(len(big))+8<<10)
			for i, sv := range tt.saves {
				rec := saveFrom(app, sv.peer, sv.xff, "", big)
				if rec.Code != tt.want[i] {
					t.Fatalf("save %d from %s (X-Forwarded-For %q): status %d; want %d: %.200s", i+1, sv.peer, sv.xff, rec.Code, tt.want[i], rec.Body.String())
				}
				if rec.Code != http.StatusTooManyRequests {
					continue
				}
				if secs, err := strconv.Atoi(rec.Header().Get("Retry-After")); err != nil || secs < 1 {
					t.Errorf("Retry-After = %q; want whole seconds from 1", rec.Header().Get("Retry-After"))
				}
				var e jsonError
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
					t.Fatalf("429 body is not the script's JSON: %v: %s", err, rec.Body.String())
				}
				for _, want := range []string{"Nothing of this was stored", "your text is still on this page", "Try again in ", "from one address"} {
					if !strings.Contains(e.Error, want) {
						t.Errorf("message %q lacks %q", e.Error, want)
					}
				}
			}
		})
	}
}

func TestWriteBudgetRefusalKeepsTheDraft(t *testing.T) {
	app, store := newBudgetApp(t, "", 300<<10)
	user := strings.Repeat("ab", 16)
	if rec := saveFrom(app, "192.0.2.1", "", user, "package refund // FIRST-DRAFT"); rec.Code != http.StatusOK {
		t.Fatalf("first save: %d %s", rec.Code, rec.Body.String())
	}
	// Spend the address's budget under other cookies.
	for saveFrom(app, "192.0.2.1", "", "", strings.Repeat("y", 100<<10)).Code == http.StatusOK {
	}
	if rec := saveFrom(app, "192.0.2.1", "", user, "package refund // SECOND-DRAFT"+strings.Repeat(" ", 100<<10)); rec.Code != http.StatusTooManyRequests {
		t.Fatalf("save past the budget: %d; want 429", rec.Code)
	}
	a, err := store.Attempt(context.Background(), user, storage.KindProblem, gradedSlug)
	if err != nil {
		t.Fatal(err)
	}
	d, err := store.CodeDraftOf(context.Background(), a.ID)
	if err != nil || d.Code != "package refund // FIRST-DRAFT" {
		t.Errorf("draft after the refused save = %q, %v; want the first one kept", d.Code, err)
	}
	// Reading is never charged.
	req := httptest.NewRequest(http.MethodGet, "/problems/"+gradedSlug, nil)
	req.RemoteAddr = "192.0.2.1:40000"
	req.AddCookie(&http.Cookie{Name: userCookie, Value: user})
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "FIRST-DRAFT") {
		t.Errorf("problem page after the budget ran out: %d", rec.Code)
	}
}

func TestWriteCost(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		body   io.Reader
		length int64 // -1: not announced
		want   float64
	}{
		{"announced body", "/practice/name", strings.NewReader("display_name=Ada"), 16, 16 + writeOverhead},
		{"announced past the cap is charged the cap", "/practice/name", strings.NewReader(""), 10 << 20, maxAnswerBytes + 4<<10 + writeOverhead},
		{"unannounced body is charged what it held", "/practice/name", strings.NewReader("display_name=Ada"), -1, 16 + writeOverhead},
		{"grade adds the largest report kept", "/problems/p/grade", strings.NewReader("code=x"), 6, 6 + writeOverhead + storage.MaxReportBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := echo.New()
			req := httptest.NewRequest(http.MethodPost, tt.path, tt.body)
			req.ContentLength = tt.length
			c := e.NewContext(req, httptest.NewRecorder())
			route := tt.path
			if strings.HasSuffix(route, "/grade") {
				route = "/problems/:slug/grade"
			}
			c.SetPath(route)
			if got := writeCost(c); got != tt.want {
				t.Errorf("writeCost = %v; want %v", got, tt.want)
			}
			// The handler still reads the whole body.
			if tt.length == -1 {
				if rest, _ := io.ReadAll(c.Request().Body); string(rest) != "display_name=Ada" {
					t.Errorf("body after charging = %q", rest)
				}
			}
		})
	}
}

// quotaStore refuses every write that could grow the user's storage, as
// the real store does once the user is at MaxUserBytes.
type quotaStore struct {
	*storage.Store
}

var errTestQuota = &storage.QuotaError{Limit: storage.MaxUserBytes, Used: storage.MaxUserBytes - 10, Adding: 300}

func (quotaStore) SaveCodeDraftIn(context.Context, int64, string, string) (storage.CodeDraft, error) {
	return storage.CodeDraft{}, errTestQuota
}

func TestQuotaReachedSaysSo(t *testing.T) {
	store, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "web.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	app, err := New(Config{Catalog: gradingCatalog(), Store: quotaStore{store}, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		path   string
		script bool
	}{
		{"autosave", "/problems/" + gradedSlug + "/code", true},
		{"plain form save", "/problems/" + gradedSlug + "/code", false},
		{"grade", "/problems/" + gradedSlug + "/grade", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, tt.path, strings.NewReader("code=package+refund"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.script {
				req.Header.Set("Accept", "application/json")
			}
			rec := httptest.NewRecorder()
			app.ServeHTTP(rec, req)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d; want 413: %.300s", rec.Code, rec.Body.String())
			}
			body := rec.Body.String()
			if tt.script {
				var e jsonError
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
					t.Fatalf("not JSON: %s", body)
				}
				body = e.Error
			}
			for _, want := range []string{"8 MiB each person may store", "Nothing saved before is lost", "copy it somewhere safe"} {
				if !strings.Contains(body, want) {
					t.Errorf("answer lacks %q: %.400s", want, body)
				}
			}
		})
	}
}

// countingStore records what the practice page read.
type countingStore struct {
	*storage.Store
	runBytes  int // source and report bytes GradeRuns returned
	fullReads int // calls that read a run's source and report
}

func (s *countingStore) GradeRuns(ctx context.Context, attemptID int64) ([]storage.GradeRun, error) {
	runs, err := s.Store.GradeRuns(ctx, attemptID)
	for _, r := range runs {
		s.runBytes += len(r.Source) + len(r.ReportJSON)
	}
	return runs, err
}

func (s *countingStore) GradeRun(ctx context.Context, id int64) (storage.GradeRun, error) {
	s.fullReads++
	return s.Store.GradeRun(ctx, id)
}

func (s *countingStore) LatestGradeRunIn(ctx context.Context, attemptID int64, lang string) (storage.GradeRun, error) {
	s.fullReads++
	return s.Store.LatestGradeRunIn(ctx, attemptID, lang)
}

func TestPracticeReadsNoSourcesOrReports(t *testing.T) {
	ctx := context.Background()
	store, err := storage.Open(ctx, filepath.Join(t.TempDir(), "web.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	counting := &countingStore{Store: store}
	app, err := New(Config{Catalog: gradingCatalog(), Store: counting, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	user := strings.Repeat("cd", 16)
	a, err := store.StartAttempt(ctx, user, storage.KindProblem, gradedSlug)
	if err != nil {
		t.Fatal(err)
	}
	huge := []byte(`{"trace":"` + strings.Repeat("HUGE-REPORT ", 100<<10) + `"}`)
	for i := range 3 {
		r, err := store.StartGradeRun(ctx, a.ID, gradedSlug, 1, "package refund // SOURCE-MARKER"+strings.Repeat(" ", 200<<10))
		if err != nil {
			t.Fatal(err)
		}
		if err := store.FinishGradeRun(ctx, r.ID, storage.GradeRunEnd{Status: storage.GradeDone, ReportJSON: huge,
			Summary: storage.GradeSummary{Verdict: "fail", ScenariosPassed: 10 + i, ScenariosTotal: 23, InvariantsHeld: 100 + i, InvariantsTotal: 260}}); err != nil {
			t.Fatal(err)
		}
	}
	req := httptest.NewRequest(http.MethodGet, "/practice", nil)
	req.AddCookie(&http.Cookie{Name: userCookie, Value: user})
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	body := rec.Body.String()
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /practice: %d", rec.Code)
	}
	for _, want := range []string{"10 of 23", "12 of 23", "Invariants held: 100 of 260 on your first graded run, 102 of 260 on your latest (3 graded runs)."} {
		if !strings.Contains(body, want) {
			t.Errorf("history lacks %q", want)
		}
	}
	if strings.Contains(body, "HUGE-REPORT") || strings.Contains(body, "SOURCE-MARKER") {
		t.Error("the history shows a source or a report")
	}
	if counting.runBytes != 0 || counting.fullReads != 0 {
		t.Errorf("My practice read %d bytes of sources and reports and %d whole runs; want none", counting.runBytes, counting.fullReads)
	}
}

func TestTrimmedRunsSayWhatIsKept(t *testing.T) {
	ctx := context.Background()
	ts := newGradingTestServer(t, &fakeGrader{report: failingReport()})
	b := ts.newBrowser(t)
	b.get("/practice")
	a, err := ts.store.StartAttempt(ctx, b.userID(), storage.KindProblem, gradedSlug)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(failingReport())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for range storage.FullRunsKept + 1 {
		r, err := ts.store.StartGradeRun(ctx, a.ID, gradedSlug, 1, "package refund")
		if err != nil {
			t.Fatal(err)
		}
		if err := ts.store.FinishGradeRun(ctx, r.ID, storage.GradeRunEnd{Status: storage.GradeDone, ReportJSON: data,
			Summary: storage.GradeSummary{Verdict: "fail", ScenariosPassed: 1, ScenariosTotal: 2}}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	// One more run trims the first: it is then past the newest kept.
	r, _ := ts.store.StartGradeRun(ctx, a.ID, gradedSlug, 1, "package refund")
	ts.store.FinishGradeRun(ctx, r.ID, storage.GradeRunEnd{Status: storage.GradeDone, ReportJSON: data,
		Summary: storage.GradeSummary{Verdict: "fail", ScenariosPassed: 1, ScenariosTotal: 2}})

	tests := []struct {
		name, path string
		want       []string
		unwanted   []string
	}{
		{"trimmed run's page", gradeRunURL(gradedSlug, ids[0]),
			[]string{"Only this run&#39;s summary is kept", "newest " + strconv.Itoa(storage.FullRunsKept) + " runs"}, []string{"LOST-REPLY-TITLE"}},
		{"a kept run's page", gradeRunURL(gradedSlug, ids[len(ids)-1]), []string{"LOST-REPLY-TITLE"}, []string{"summary is kept"}},
		{"trimmed run's stream", gradeRunURL(gradedSlug, ids[0]) + "/events", []string{"event: report", "Only this run"}, nil},
		{"My practice", "/practice", []string{"(summary only)", "Run " + strconv.FormatInt(r.ID, 10)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := b.get(tt.path)
			if p.status != http.StatusOK {
				t.Fatalf("GET %s: %d", tt.path, p.status)
			}
			p.mustContain(t, tt.want...)
			p.mustNotContain(t, tt.unwanted...)
		})
	}
}
