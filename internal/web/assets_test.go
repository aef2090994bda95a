package web

import (
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestEveryStaticFileIsEmbedded guards against a file added to web/static
// that the embed pattern misses (for example a dot-file or an underscore
// name, which //go:embed skips for directories).
func TestEveryStaticFileIsEmbedded(t *testing.T) {
	set, err := sharedAssets()
	if err != nil {
		t.Fatal(err)
	}
	disk := os.DirFS("../../web/static")
	n := 0
	err = fs.WalkDir(disk, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		if orig, ok := strings.CutSuffix(name, ".br"); ok {
			if _, ok := set.best[orig]; !ok { // a file's brotli form
				t.Errorf("web/static/%s is not embedded", name)
			}
			return nil
		}
		if _, ok := set.files[name]; !ok {
			t.Errorf("web/static/%s is not embedded", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("found no files in web/static")
	}
}
