package content

import (
	"bytes"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestEveryContentFileIsEmbedded guards the go:embed line: a folder added
// to content/ but not to the directive would be missing from the binary
// without any error.
func TestEveryContentFileIsEmbedded(t *testing.T) {
	disk := os.DirFS(".")
	count := 0
	err := fs.WalkDir(disk, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path == "embed.go" || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		count++
		t.Run(path, func(t *testing.T) {
			want, err := fs.ReadFile(disk, path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fs.ReadFile(FS, path)
			if err != nil {
				t.Fatalf("not embedded: %v (add its folder to the go:embed line in embed.go)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("embedded copy differs from the file on disk")
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if count == 0 {
		t.Fatal("found no content files on disk")
	}
}
