//go:build !linux

package sandbox

// CurrentCPU is unknown here.
func CurrentCPU() (int, bool) { return 0, false }
