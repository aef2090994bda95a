// Package bytesize writes byte counts as people read them, for limits in
// logs and messages: the sandbox's, the storage's.
package bytesize

import "fmt"

// Format writes a byte count in binary units: 2 GiB, 768 MiB, 64 KiB.
func Format(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
