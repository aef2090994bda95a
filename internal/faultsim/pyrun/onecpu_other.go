//go:build !linux

package pyrun

// oneCPU pins nothing where the kernel has no CPU affinity we use.
func oneCPU(*int) (restore func()) { return func() {} }
