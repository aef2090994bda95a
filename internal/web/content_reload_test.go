package web

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-dev/faultline/internal/problems"
)

// withTitle is the test catalogue with the refund problem renamed.
func withTitle(title string) *problems.Catalog {
	cat := testCatalog()
	p := *cat.Problems[1]
	p.Title = title
	cat.Problems[1] = &p
	return cat
}

// withoutRefundProblem is the test catalogue after the refund problem was
// deleted (and the screen that named it).
func withoutRefundProblem() *problems.Catalog {
	cat := testCatalog()
	cat.Problems = cat.Problems[:1]
	cat.Screens = nil
	return cat
}

func diags(n int) []problems.Diagnostic {
	var out []problems.Diagnostic
	for i := range n {
		out = append(out, problems.Diagnostic{File: "content/sets/rapid.md", Line: i + 1, Message: fmt.Sprintf("error number %d", i+1)})
	}
	return out
}

// TestContentReloads swaps the content of a running app the way serve
// -watch does and checks what each page shows after each swap: an edit
// is served on the next request, a rejected edit keeps the last good
// version and shows its errors on every page, and the next good one
// takes them away. The user's history of a problem that was removed
// still shows.
func TestContentReloads(t *testing.T) {
	content := NewContent(testCatalog())
	app, _ := newTestApp(t, Config{Content: content})
	ts := httptest.NewServer(app)
	t.Cleanup(ts.Close)
	b := (&testServer{Server: ts, app: app}).newBrowser(t)
	if p := b.post("/problems/refund-bug/reveal", url.Values{}); p.status != http.StatusOK {
		t.Fatalf("reveal: status %d", p.status)
	}

	const banner = `<div class="content-errors" role="alert">`
	pages := []string{"/", "/problems/refund-bug", "/sets/rapid", "/screens/tech-screen", "/practice", "/no/such/page"}
	type check struct {
		path       string
		status     int
		has, lacks []string
	}
	everyPage := func(has, lacks []string) []check {
		var out []check
		for _, p := range pages {
			status := http.StatusOK
			if p == "/no/such/page" {
				status = http.StatusNotFound
			}
			out = append(out, check{p, status, has, lacks})
		}
		return out
	}
	steps := []struct {
		name   string
		swap   func()
		checks []check
	}{
		{"the content it started with", func() {}, everyPage(nil, []string{banner})},
		{"an edit", func() { content.Replace(withTitle("Find the refund bug, edited")) }, []check{
			{"/problems/refund-bug", 200, []string{"Find the refund bug, edited"}, []string{banner}},
			{"/", 200, []string{"Find the refund bug, edited"}, nil},
		}},
		{"an edit with errors", func() {
			content.Reject([]problems.Diagnostic{
				{File: "content/problems/refund-bug/problem.md", Line: 3, Message: `unknown key "dificulty"`},
				{File: "content/sets/rapid.md", Message: "cannot read file: <denied>"},
			})
		}, append(everyPage([]string{banner, "The content has 2 errors.",
			`<li><code>content/problems/refund-bug/problem.md:3</code> unknown key &#34;dificulty&#34;</li>`,
			`<li><code>content/sets/rapid.md</code> cannot read file: &lt;denied&gt;</li>`}, []string{"And "}),
			// Still the last version that loaded.
			check{"/problems/refund-bug", 200, []string{"Find the refund bug, edited"}, nil})},
		{"one error", func() { content.Reject(diags(1)) }, []check{
			{"/", 200, []string{"The content has 1 error.", "error number 1"}, nil},
		}},
		{"more errors than the banner lists", func() { content.Reject(diags(maxBannerErrors + 3)) }, []check{
			{"/", 200, []string{fmt.Sprintf("The content has %d errors.", maxBannerErrors+3),
				fmt.Sprintf("rapid.md:%d</code>", maxBannerErrors), "And 3 more: <code>server lint</code> lists them all."},
				[]string{fmt.Sprintf("rapid.md:%d</code>", maxBannerErrors+1)}},
		}},
		{"fixed", func() { content.Replace(withTitle("Find the refund bug, fixed")) }, append(everyPage(nil, []string{banner}),
			check{"/problems/refund-bug", 200, []string{"Find the refund bug, fixed"}, nil})},
		{"the problem removed", func() { content.Replace(withoutRefundProblem()) }, []check{
			{"/problems/refund-bug", 404, nil, nil},
			{"/screens/tech-screen", 404, nil, nil},
			{"/", 200, []string{"Design a safe client"}, []string{"/problems/refund-bug"}},
			// The user's history, keyed by the slug, outlives the problem.
			{"/practice", 200, []string{"refund-bug", "(no longer in the catalogue)"}, nil},
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.swap()
			for _, c := range step.checks {
				p := b.get(c.path)
				if p.status != c.status {
					t.Errorf("GET %s: status %d; want %d", c.path, p.status, c.status)
				}
				for _, s := range c.has {
					if !strings.Contains(p.body, s) {
						t.Errorf("GET %s lacks %s", c.path, s)
					}
				}
				for _, s := range c.lacks {
					if strings.Contains(p.body, s) {
						t.Errorf("GET %s has %s", c.path, s)
					}
				}
			}
		})
	}
}

// TestContentSwapsUnderRequests serves pages while the content is swapped
// back and forth between two versions that share no problem, as fast as
// it can. A request takes one version when it arrives: a screen page that
// looked up its screen in one version and its problems in the other would
// find no problem and fail. Run it with -race.
func TestContentSwapsUnderRequests(t *testing.T) {
	version := func(v string) *problems.Catalog {
		cat := testCatalog()
		p := *cat.Problems[1]
		p.Slug, p.Title = "problem-"+v, "PROBLEM-"+v
		cat.Problems = []*problems.Problem{cat.Problems[0], &p}
		sc := *cat.Screens[0]
		sc.Title = "SCREEN-" + v
		sc.Items = []problems.ScreenItem{{Problem: p.Slug}, {Questions: "rapid"}}
		cat.Screens = []*problems.Screen{&sc}
		return cat
	}
	a, b := version("A"), version("B")
	content := NewContent(a)
	app, _ := newTestApp(t, Config{Content: content})
	ts := httptest.NewServer(app)
	t.Cleanup(ts.Close)

	done := make(chan struct{})
	swapped := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-done:
				swapped <- n
				return
			default:
			}
			if n%2 == 0 {
				content.Replace(b)
			} else {
				content.Replace(a)
			}
			if n%5 == 0 {
				content.Reject(diags(1))
			}
			n++
		}
	}()

	const readers, requests = 4, 50
	var wg sync.WaitGroup
	errs := make(chan string, readers*requests)
	for range readers {
		wg.Go(func() {
			client := ts.Client()
			for i := range requests {
				path := "/screens/tech-screen"
				if i%2 == 1 {
					path = "/"
				}
				resp, err := client.Get(ts.URL + path)
				if err != nil {
					errs <- err.Error()
					continue
				}
				var body strings.Builder
				_, err = io.Copy(&body, resp.Body)
				resp.Body.Close()
				if err != nil {
					errs <- err.Error()
					continue
				}
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Sprintf("GET %s: status %d", path, resp.StatusCode)
					continue
				}
				page := body.String()
				sawA := strings.Contains(page, "SCREEN-A") && strings.Contains(page, "PROBLEM-A")
				sawB := strings.Contains(page, "SCREEN-B") && strings.Contains(page, "PROBLEM-B")
				mixed := strings.Contains(page, "-A") && strings.Contains(page, "-B")
				if sawA == sawB || mixed {
					errs <- fmt.Sprintf("GET %s mixes the two versions or shows neither", path)
				}
			}
		})
	}
	wg.Wait()
	close(done)
	n := <-swapped
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n < 2 {
		t.Errorf("the content was swapped %d times during the requests; the test needs several", n)
	}
}
