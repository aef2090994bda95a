package interpreted

import (
	"runtime"
	"syscall"
	"unsafe"
)

// GradeHeapBytes is the heap a grading child grows ahead of its grade (see
// PrepareHeap): more than the refund reference's grade allocates (some
// 28 MB, collected only at the end at gradeGCPercent).
const GradeHeapBytes = 48 << 20

// hugePageBytes is the size of an x86-64 or arm64 transparent huge page;
// on a system whose huge pages differ, the advice covers fewer of them.
const hugePageBytes = 2 << 20

// madvHugePage is MADV_HUGEPAGE (the syscall package does not name it).
const madvHugePage = 14

// PrepareHeap grows a grading child's heap by GradeHeapBytes in one piece,
// advises the kernel to back it with transparent huge pages, and frees it,
// so the grade's allocations land there. A child is a fresh process: the
// Go runtime maps its heap as it grows, and the kernel backs it page by
// page, one fault per 4 KiB, some 10,000 faults in a grade of the refund
// reference (most hosts enable huge pages only where advised, and the
// runtime advises none for the heap). A huge page is one fault per 2 MiB:
// the refund reference's child faulted 2,900 times, and its CPU fell from
// 94 to 83 ms. Freeing the piece takes a collection, of the small heap
// start-up made: a child calls this first thing, before it reads its job
// (a spare child, before it waits for one). With the collection on a
// goroutine of its own, beside the reading of the job, the grade had
// allocated some 4 MB in 4 KiB pages by the time the piece was free (900
// faults more). Nothing changes where the kernel has no transparent huge
// pages, and no limit is touched: the address space was the heap's anyway,
// and a huge page is only backed once the grade touches it.
func PrepareHeap() {
	piece := make([]byte, GradeHeapBytes) // fresh memory: not written, not backed yet
	from := uintptr(unsafe.Pointer(unsafe.SliceData(piece)))
	start := (from + hugePageBytes - 1) &^ (hugePageBytes - 1)
	end := (from + GradeHeapBytes) &^ (hugePageBytes - 1)
	if start < end {
		syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugePage)
	}
	runtime.KeepAlive(piece)
	piece = nil
	runtime.GC()
}
