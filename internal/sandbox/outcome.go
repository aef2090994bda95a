package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/bytesize"
	"github.com/faultline-dev/faultline/internal/textclip"
)

// Ending says how a child process ended.
type Ending string

// Endings, from the most to the least specific. Every one but EndNormal
// means the child did not finish its work.
const (
	EndNormal      Ending = "normal"       // exited 0
	EndWallTime    Ending = "wall-time"    // killed by us: the wall-clock limit ran out
	EndCPUTime     Ending = "cpu-time"     // killed by the kernel: RLIMIT_CPU
	EndMemory      Ending = "memory"       // the Go runtime could not get memory under RLIMIT_AS
	EndResultLimit Ending = "result-limit" // killed by us: the result stream passed its cap
	EndCanceled    Ending = "canceled"     // killed by us: the caller's context ended
	EndCrash       Ending = "crash"        // any other non-zero exit or signal
)

// Outcome is what is known about a finished child.
type Outcome struct {
	Ending Ending
	// ExitCode is the exit status, or -1 when a signal ended the child.
	ExitCode int
	// Signal names the signal that ended the child ("killed", "CPU time
	// limit exceeded"); empty when it exited.
	Signal string
	// Fatal is the runtime's own explanation when it printed one: the
	// first "panic: ..." or "fatal error: ..." line of stderr.
	Fatal string
	// Stdout and Stderr are the child's stray output, capped (see
	// Limits.OutputBytes); OutputTruncated is set when more was written.
	Stdout, Stderr  []byte
	OutputTruncated bool
	// Results is the number of complete result lines received on fd 3.
	Results int
	// Limits are the limits the child ran under, defaults filled in.
	Limits Limits
	// Namespaces reports whether the child ran in new user and network
	// namespaces.
	Namespaces bool
	// Warm reports whether the child was a spare, started and initialised
	// before the job came.
	Warm bool
	// Reused is how many jobs the child ran before this one (Pool.Reuse).
	Reused int
	// Wall is the real time from the job's hand-over to exit; CPU the user+system time
	// the child used; MaxRSS its peak resident memory (bytes).
	Wall   time.Duration
	CPU    time.Duration
	MaxRSS int64
}

// OK reports whether the child finished normally.
func (o *Outcome) OK() bool { return o.Ending == EndNormal }

// Describe says in one line why the child ended, naming the limit that
// stopped it: "killed: CPU time limit of 10s reached".
func (o *Outcome) Describe() string {
	switch o.Ending {
	case EndNormal:
		return "finished normally"
	case EndWallTime:
		return fmt.Sprintf("killed: wall-clock time limit of %s reached", o.Limits.WallTime)
	case EndCPUTime:
		return fmt.Sprintf("killed: CPU time limit of %ds reached", o.Limits.cpuSeconds())
	case EndMemory:
		s := fmt.Sprintf("killed: memory limit reached (address space %s)", bytesize.Format(o.Limits.AddressSpace))
		if o.Fatal != "" {
			s += ": " + o.Fatal
		}
		return s
	case EndResultLimit:
		return fmt.Sprintf("killed: result output passed its limit of %s", bytesize.Format(int64(o.Limits.ResultBytes)))
	case EndCanceled:
		return "killed: the request was canceled"
	}
	switch {
	case o.Fatal != "":
		return "crashed: " + o.Fatal
	case o.Signal != "":
		return "crashed: killed by signal: " + o.Signal
	}
	return fmt.Sprintf("crashed: exit status %d", o.ExitCode)
}

// memoryMessages are what the Go runtime prints when RLIMIT_AS or the
// system refuses it memory: a failed heap or stack allocation, or a thread
// whose stack could not be mapped (errno 12 is ENOMEM).
var memoryMessages = []string{
	"out of memory",
	"cannot allocate memory",
	"failed to reserve",                    // RLIMIT_AS too small for the runtime's own reservations
	"too many address space collisions",    // the same, in a -race build
	"failed to create new os thread (have", // with errno=12, checked below
}

// isMemoryFailure reports whether the captured stderr shows the runtime
// running out of memory.
func isMemoryFailure(stderr []byte) bool {
	s := strings.ToLower(string(stderr))
	for _, m := range memoryMessages {
		i := strings.Index(s, m)
		if i < 0 {
			continue
		}
		if strings.HasPrefix(m, "failed to create") {
			line := s[i:]
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if !strings.Contains(line, "errno=12") {
				continue
			}
		}
		return true
	}
	return false
}

// fatalLine returns the runtime's explanation from stderr: the first line
// starting with "panic: " or "fatal error: ", without goroutine noise.
// When a panic is followed by a fatal error (a panic in a goroutine during
// a fatal), the panic is the cause and is returned.
func fatalLine(stderr []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var fatal string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "panic: "):
			// "[recovered, repanicked]" is the interpreter passing the
			// panic on, which says nothing to the person who wrote it.
			line = recoveredSuffix.ReplaceAllString(line, "")
			return trimLine(line)
		case fatal == "" && strings.HasPrefix(line, "fatal error: "):
			fatal = trimLine(line)
		case fatal == "" && strings.HasPrefix(line, "runtime: ") && strings.Contains(line, "out of memory"):
			fatal = trimLine(line)
		}
	}
	return fatal
}

// recoveredSuffix is what the runtime appends to a panic that was
// recovered and raised again on its way up.
var recoveredSuffix = regexp.MustCompile(`\s*\[recovered[^\]]*\]`)

// trimLine keeps a runtime message short enough for a one-line report.
func trimLine(s string) string {
	return textclip.Bytes(s, 300, "...")
}
