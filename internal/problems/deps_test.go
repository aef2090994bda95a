package problems

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServerLinksNoHighlighterRegistry: the server binary (the web server,
// and the grading child and referee it re-executes) does not link
// chroma's lexer, style or formatter registries, nor
// goldmark-highlighting. Their package init built every lexer and style
// and cost each process about 15 ms of CPU at start-up, a grading child
// included, which never highlights. Code blocks go through our own lexers
// and writeCodeHTML; the stylesheet is committed in web/static.
func TestServerLinksNoHighlighterRegistry(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to list the dependencies")
	}
	out, err := exec.Command("go", "list", "-deps", "../../cmd/server").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/server: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps listed %d packages: %q", len(deps), out)
	}
	forbidden := []string{
		"github.com/alecthomas/chroma/v2/lexers",
		"github.com/alecthomas/chroma/v2/styles",
		"github.com/alecthomas/chroma/v2/formatters",
		"github.com/yuin/goldmark-highlighting",
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				t.Errorf("./cmd/server depends on %s", dep)
			}
		}
	}
}
