package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// CurrentCPU is the CPU the calling thread runs on: where the kernel last
// placed it, on a CPU with room when it started or woke.
func CurrentCPU() (int, bool) {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return 0, false
	}
	return int(cpu), true
}
