package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkChildStart measures what starting one child costs, from a bare
// fork+exec of the binary up to the full sandbox (prlimit, new user and
// network namespaces, process group, result pipe). The child here reads
// its input, writes two result lines and exits.
func BenchmarkChildStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bare-exec", func(b *testing.B) {
		for b.Loop() {
			// Without prlimit and fd 3 the child's writes to fd 3 fail,
			// which it ignores: this is the floor of any child.
			cmd := exec.Command(exe, testChildArg, "echo")
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tt := range []struct {
		name         string
		noNamespaces bool
	}{
		{"prlimit", true},
		{"prlimit+namespaces", false},
	} {
		b.Run(tt.name, func(b *testing.B) {
			r := testRunner("echo", Limits{})
			r.NoNamespaces = tt.noNamespaces
			var rss int64
			for b.Loop() {
				out, err := r.Run(context.Background(), []byte("x"), nil)
				if err != nil || !out.OK() {
					b.Fatalf("%v %+v", err, out)
				}
				if !tt.noNamespaces && !out.Namespaces {
					b.Skip("this host does not allow namespaces")
				}
				rss = max(rss, out.MaxRSS)
			}
			b.ReportMetric(float64(rss)/(1<<20), "MiB-peak-rss")
		})
	}
}
