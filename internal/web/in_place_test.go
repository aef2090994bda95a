package web

import (
	"net/url"
	"strings"
	"testing"

	nethtml "golang.org/x/net/html"

	"github.com/faultline-dev/faultline/content"
	"github.com/faultline-dev/faultline/internal/problems"
)

// TestInPlaceFormsNameTheirRegions: each form in-place.js sends names the
// regions it changes (data-in-place); every one is on the page before and
// on the page the server answers, and the answer's region holds what the
// form revealed. Without the script the forms post and redirect as before.
func TestInPlaceFormsNameTheirRegions(t *testing.T) {
	cat, err := problems.Load(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, page string
		action     string     // the form sent, by its action's suffix
		fields     url.Values // nil: the form's own hidden fields
		wantIn     map[string]string
	}{
		{name: "a hint", page: "/problems/async-refund", action: "/hints",
			wantIn: map[string]string{"part-1-hints": `id="part-1-hint-1"`}},
		{name: "a reveal without answering", page: "/problems/async-refund", action: "/reveal",
			wantIn: map[string]string{"answer-material-region": `id="answer-material"`, "part-1-rubric": "What this part should cover"}},
		{name: "a plain answer", page: "/problems/async-refund", action: "/answer",
			fields: url.Values{"answer": {"A lost reply, two workers, a crash before the write."}},
			wantIn: map[string]string{"answer": "What you submitted last", "answer-material-region": `id="answer-material"`}},
		// A set's question is its own region ("*": the form's first).
		{name: "a set's reveal", page: "/sets/delivery-guarantees", action: "/reveal",
			wantIn: map[string]string{"*": "Key points to check your answer against"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newTestServer(t, cat).newBrowser(t)
			before := b.get(tc.page)
			doc := parseFragment(t, before.body)
			var form *nethtml.Node
			for _, f := range find(doc.root, tagged("form")) {
				if strings.HasSuffix(attr(f, "action"), tc.action) && attr(f, "data-in-place") != "" {
					form = f
					break
				}
			}
			if form == nil {
				t.Fatalf("no in-place form posting to …%s on %s", tc.action, tc.page)
			}
			regions := strings.Fields(attr(form, "data-in-place"))
			for _, id := range regions {
				if doc.byID[id] == nil {
					t.Errorf("the form names the region %q, which is not on the page", id)
				}
			}
			fields := tc.fields
			if fields == nil {
				fields = url.Values{}
				for _, in := range find(form, tagged("input")) {
					fields.Add(attr(in, "name"), attr(in, "value"))
				}
			}
			after := b.post(attr(form, "action"), fields)
			if after.status != 200 {
				t.Fatalf("the form's answer: status %d", after.status)
			}
			answered := parseFragment(t, after.body)
			for _, id := range regions {
				if answered.byID[id] == nil {
					t.Errorf("the answered page lacks the region %q", id)
				}
			}
			for id, want := range tc.wantIn {
				if id == "*" {
					id = regions[0]
				}
				if !contains(regions, id) {
					t.Errorf("the form does not name %q", id)
					continue
				}
				if n := answered.byID[id]; n == nil || !strings.Contains(renderNode(t, n), want) {
					t.Errorf("the region %q lacks %q after the form", id, want)
				}
			}
		})
	}
}

func renderNode(t *testing.T, n *nethtml.Node) string {
	t.Helper()
	var sb strings.Builder
	if err := nethtml.Render(&sb, n); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}
