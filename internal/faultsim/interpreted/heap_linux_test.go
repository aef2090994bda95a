package interpreted

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestPrepareHeapAdvisesHugePages checks that after PrepareHeap a grade's
// allocations land in heap the kernel was advised to back with huge pages
// (the "hg" flag of the mapping in /proc/self/smaps).
func TestPrepareHeapAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	PrepareHeap()
	// What a grade allocates: the page allocator gives the lowest free
	// pages that fit, the freed piece for anything larger than the holes
	// start-up left. The piece's first huge page boundary may be up to
	// 2 MiB into it: the allocation's end is past it.
	b := make([]byte, 8<<20)
	defer runtime.KeepAlive(b)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(b))) + uintptr(len(b)) - 1
	flags, ok := vmFlags(t, addr)
	if !ok {
		t.Fatalf("no mapping holds %#x", addr)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping holding a grade's allocation at %#x has VmFlags %q, without hg (MADV_HUGEPAGE)", addr, flags)
	}
}

// vmFlags returns the VmFlags of the mapping holding addr.
func vmFlags(t *testing.T, addr uintptr) (string, bool) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(line, ":") && !strings.Contains(strings.Fields(line)[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), true
		}
	}
	return "", false
}
