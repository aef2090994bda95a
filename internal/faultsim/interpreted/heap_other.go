//go:build !linux

package interpreted

// PrepareHeap does nothing off Linux (see heap_linux.go).
func PrepareHeap() {}
