package main

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/content"
)

func TestParseServeFlagsWatch(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    bool
		wantErr string
	}{
		{"off by default", []string{"-content", "c"}, nil, false, ""},
		{"the flag", []string{"-content", "c", "-watch"}, nil, true, ""},
		{"the environment", []string{"-content", "c"}, map[string]string{"FAULTLINE_WATCH": "true"}, true, ""},
		{"the flag beats the environment", []string{"-content", "c", "-watch=false"}, map[string]string{"FAULTLINE_WATCH": "1"}, false, ""},
		{"a bad environment value", nil, map[string]string{"FAULTLINE_WATCH": "sometimes"}, false, `FAULTLINE_WATCH="sometimes"`},
		{"watching the built-in content", []string{"-watch"}, nil, false, "-watch needs -content DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseServeFlags(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v; want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Watch != tt.want {
				t.Errorf("Watch = %v; want %v", got.Watch, tt.want)
			}
		})
	}
}

// watchCheck is one thing a page must show (or not) after a step.
type watchCheck struct {
	path   string
	status int
	has    []string // each must be in the body
	lacks  []string // none may be
}

// TestServeWatchReloadsContent runs the app with -watch on a copy of the
// shipped content and edits it as an author would, one step after another
// on the same running server: each step's pages must show the change
// without a restart. A broken edit keeps the last good version served and
// puts lint's diagnostics, file:line, in a banner on every page; fixing it
// takes the banner away.
func TestServeWatchReloadsContent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "content")
	if err := os.CopyFS(dir, content.FS); err != nil {
		t.Fatal(err)
	}
	const slug = "idempotent-create-client"
	problemPath := filepath.Join(dir, "problems", slug, "problem.md")
	original, err := os.ReadFile(problemPath)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) func(t *testing.T) {
		return func(t *testing.T) {
			src, err := os.ReadFile(problemPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(src, []byte(from)) {
				t.Fatalf("%s has no %q to replace", problemPath, from)
			}
			writeAtomically(t, problemPath, bytes.Replace(src, []byte(from), []byte(to), 1))
		}
	}
	title := firstLineWith(t, original, "title: ")
	// The broken edit: a misspelt key on line 3, under the slug, where
	// lint will point.
	broken := "<code>" + html.EscapeString(filepath.Join(dir, "problems", slug, "problem.md")) + ":3</code> front matter: unknown key"
	banner := `class="content-errors" role="alert"`
	everyPage := func(has, lacks []string) []watchCheck {
		return []watchCheck{
			{"/", 200, has, lacks},
			{"/sets/applied-ai-rapid-fire", 200, has, lacks},
			{"/screens/applied-ai-tech-screen", 200, has, lacks},
			{"/practice", 200, has, lacks},
			{"/no/such/page", 404, has, lacks},
		}
	}

	base, client := startWatchedServer(t, dir)
	// Something the user did with the problem that a later step removes:
	// their history is keyed by its slug and must outlive it.
	if resp, err := client.PostForm(base+"/problems/"+slug+"/reveal", url.Values{}); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}

	steps := []struct {
		name   string
		change func(t *testing.T)
		checks []watchCheck
	}{
		{"edit a problem's title", edit(title, "title: Edited while serving"), []watchCheck{
			{"/problems/" + slug, 200, []string{"Edited while serving"}, []string{banner}},
			{"/", 200, []string{"Edited while serving"}, nil},
		}},
		{"break it with a misspelt key", edit("slug: "+slug+"\n", "slug: "+slug+"\ndificulty: hard\n"), append([]watchCheck{
			// The last good version still serves.
			{"/problems/" + slug, 200, []string{"Edited while serving", banner, broken}, nil},
		}, everyPage([]string{banner, broken}, nil)...)},
		{"fix it with another edit", func(t *testing.T) {
			edit("dificulty: hard\n", "")(t)
			edit("title: Edited while serving", "title: Fixed and edited")(t)
		}, append([]watchCheck{
			{"/problems/" + slug, 200, []string{"Fixed and edited"}, []string{banner}},
		}, everyPage(nil, []string{banner})...)},
		{"add a question set", func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(dir, "sets", "applied-ai-rapid-fire.md"))
			if err != nil {
				t.Fatal(err)
			}
			src = bytes.Replace(src, []byte("slug: applied-ai-rapid-fire"), []byte("slug: added-set"), 1)
			writeAtomically(t, filepath.Join(dir, "sets", "added-set.md"), src)
		}, []watchCheck{
			{"/sets/added-set", 200, nil, []string{banner}},
			{"/", 200, []string{`href="/sets/added-set"`}, nil},
		}},
		{"remove the problem", func(t *testing.T) {
			if err := os.RemoveAll(filepath.Dir(problemPath)); err != nil {
				t.Fatal(err)
			}
		}, []watchCheck{
			{"/problems/" + slug, 404, nil, []string{banner}},
			{"/", 200, nil, []string{`href="/problems/` + slug + `"`}},
			// The user's history of it still renders, by its slug.
			{"/practice", 200, []string{slug, "no longer in the catalogue"}, nil},
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.change(t)
			waitForPages(t, client, base, step.checks)
		})
	}

	t.Run("the banner lists what lint prints", func(t *testing.T) {
		edit := []byte("---\nslug: added-set\nunknown_key: 1\n---\n## No model answer here?\n")
		writeAtomically(t, filepath.Join(dir, "sets", "added-set.md"), edit)
		var lint bytes.Buffer
		if code := lintCommand(context.Background(), []string{dir}, &lint, io.Discard); code != 1 {
			t.Fatalf("lint exit code %d; want 1:\n%s", code, lint.String())
		}
		lines := strings.Split(strings.TrimSpace(lint.String()), "\n")
		var want []string
		for _, l := range lines {
			place, msg, _ := strings.Cut(l, ": ")
			want = append(want, "<code>"+html.EscapeString(place)+"</code> "+html.EscapeString(msg))
		}
		waitForPages(t, client, base, []watchCheck{{"/", 200, append(want, fmt.Sprintf("The content has %d error%s.", len(lines), pluralS(len(lines)))), nil}})
	})
}

// startWatchedServer runs the app with -watch on dir until the test ends,
// and returns its address and a client with a cookie jar.
func startWatchedServer(t *testing.T, dir string) (string, *http.Client) {
	t.Helper()
	addrs := make(chan net.Addr, 1)
	cfg := serveConfig{
		Addr: "127.0.0.1:0", DB: filepath.Join(t.TempDir(), "data", "faultline.db"), Content: dir,
		Watch: true, watchInterval: 20 * time.Millisecond, GradesPerAddress: 1,
		onListen: func(a net.Addr) { addrs <- a },
	}
	ctx, cancel := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- run(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-runErr:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(shutdownTimeout + 5*time.Second):
			t.Error("run did not return after shutdown")
		}
	})
	select {
	case a := <-addrs:
		jar, err := cookiejar.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		return "http://" + a.String(), &http.Client{Jar: jar, Timeout: 10 * time.Second}
	case err := <-runErr:
		t.Fatalf("run returned before listening: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("run did not start listening")
	}
	return "", nil
}

// waitForPages fetches the pages until every check holds, or fails after
// 20 s with what the pages last showed. The watcher polls every 20 ms;
// the bound is for a loaded machine.
func waitForPages(t *testing.T, client *http.Client, base string, checks []watchCheck) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		problem := ""
		for _, c := range checks {
			if problem = checkPage(client, base, c); problem != "" {
				break
			}
		}
		if problem == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %s", problem)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkPage says what is wrong with one page, or "" when nothing is.
func checkPage(client *http.Client, base string, c watchCheck) string {
	resp, err := client.Get(base + c.path)
	if err != nil {
		return err.Error()
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err.Error()
	}
	if resp.StatusCode != c.status {
		return "GET " + c.path + ": status " + resp.Status
	}
	for _, s := range c.has {
		if !bytes.Contains(body, []byte(s)) {
			return "GET " + c.path + " lacks " + s + "\n" + string(body)
		}
	}
	for _, s := range c.lacks {
		if bytes.Contains(body, []byte(s)) {
			return "GET " + c.path + " still has " + s
		}
	}
	return ""
}

// writeAtomically saves as many editors do: a new file beside the old,
// renamed over it.
func writeAtomically(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// firstLineWith is the first line of src that starts with prefix.
func firstLineWith(t *testing.T, src []byte, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return ""
}
