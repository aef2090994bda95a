package sandbox

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Confinement probes once what this host's kernel gives a confined child
// (see ConfinementReport) and returns the same report after.
func Confinement() ConfinementReport { return probeConfinement() }

var probeConfinement = sync.OnceValue(func() ConfinementReport {
	var c ConfinementReport
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case err != nil:
		c.LandlockErr = fmt.Sprintf("the kernel refuses it (%v): not built in, or not in the boot's lsm= list", err)
	case abi < 1:
		c.LandlockErr = "the kernel reports no Landlock ABI"
	default:
		c.LandlockABI = abi
	}
	if seccomp.Supported() {
		c.Seccomp = true
	} else {
		c.SeccompErr = "the kernel has no seccomp filter mode, or a filter around this server refuses seccomp(2)"
	}
	c.Namespaces, c.NamespacesErr = probeNamespaces()
	return c
})

// probeNamespaces starts prlimit --version (the one program the sandbox
// needs anyway) in new user and network namespaces, as a Runner starts a
// child.
func probeNamespaces() (bool, string) {
	prlimit, err := findPrlimit("")
	if err != nil {
		return false, "not tried: " + err.Error()
	}
	cmd := exec.Command(prlimit, "--version")
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		GidMappingsEnableSetgroups: false,
	}
	if err := cmd.Run(); err != nil {
		return false, fmt.Sprintf("this host refuses them (%v)", err)
	}
	return true, ""
}

// applyConfinement confines this process as req says: Landlock first
// (its library sets no_new_privs on every thread), then the seccomp
// filter, which the kernel copies to every thread (TSYNC).
func applyConfinement(req confineRequest) error {
	if req.Landlock > 0 {
		if err := restrictPaths(req.ConfinePolicy); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if req.Seccomp {
		if err := loadSeccomp(len(req.Exec) > 0, req.Spawn); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	return nil
}

// runtimeReads are what a Go child (and the Python runtime after it)
// reads after it started: the time zone for time.Local, and its own open
// files, which a reusable child counts after each job (reuse.go).
var runtimeReads = []string{"/etc/localtime", "/usr/share/zoneinfo", "/proc/self/fd"}

// restrictPaths applies Landlock: nothing written but in the scratch
// directory, nothing read but runtimeReads and policy.Read, nothing
// executed but policy.Exec; no TCP bind or connect (ABI 4); no signal or
// abstract UNIX socket outside the child's domain (ABI 6). BestEffort
// applies what the kernel's ABI has of this.
func restrictPaths(policy ConfinePolicy) error {
	const (
		readFile = landlock.AccessFSSet(ll.AccessFSReadFile)
		readDir  = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSReadDir)
		execFile = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSExecute)
		devRW    = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSWriteFile)
	)
	var rules []landlock.Rule
	read := func(paths []string, optional bool) error {
		for _, p := range paths {
			fi, err := os.Stat(p)
			switch {
			case err != nil && optional:
				continue
			case err != nil:
				return err
			case fi.IsDir():
				rules = append(rules, landlock.PathAccess(readDir, p))
			default:
				rules = append(rules, landlock.PathAccess(readFile, p))
			}
		}
		return nil
	}
	if err := read(runtimeReads, true); err != nil {
		return err
	}
	if err := read(policy.Read, false); err != nil {
		return err
	}
	rules = append(rules,
		landlock.PathAccess(devRW, "/dev/null").IgnoreIfMissing(),
		landlock.PathAccess(readFile, "/dev/urandom").IgnoreIfMissing())
	if len(policy.Exec) > 0 {
		rules = append(rules, landlock.PathAccess(execFile, policy.Exec...))
		// A dynamically linked program is executed by its ELF loader
		// (which the kernel executes) from its libraries.
		for _, exe := range policy.Exec {
			if interp, libs := dynamicLinking(exe); interp != "" {
				rules = append(rules, landlock.PathAccess(execFile, interp))
				if err := read(libs, true); err != nil {
					return err
				}
			}
		}
	}
	if policy.Scratch != "" {
		rules = append(rules, landlock.RWDirs(policy.Scratch))
	}
	return landlock.V7.BestEffort().Restrict(rules...)
}

// refused is seccomp's answer to a refused call: EPERM, which a program
// reports as "operation not permitted".
const refused = seccomp.ActionErrno

// noSuchCall makes a call look absent (ENOSYS): clone3, so that a C
// library's pthread_create falls back to clone, where threads are told
// from processes by their flags.
var noSuchCall = seccomp.Action(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS))

// refusedCalls are what a confined child never needs and a hostile one
// would use: a network, another process, the host's kernel interfaces
// that reach past the other walls.
var refusedCalls = []string{
	"socket",                                                // every family: INET, INET6, UNIX (a path socket reaches the host), NETLINK, PACKET, ...
	"io_uring_setup", "io_uring_enter", "io_uring_register", // its operations bypass seccomp
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd",
	"mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
	"open_by_handle_at", "name_to_handle_at",
	"bpf", "perf_event_open", "userfaultfd",
	"keyctl", "add_key", "request_key",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"reboot", "swapon", "swapoff", "acct", "quotactl",
}

// loadSeccomp loads the filter of refusedCalls, and refuses execve too
// unless exec is set; fork, vfork and clone without CLONE_THREAD unless
// spawn is set.
func loadSeccomp(exec, spawn bool) error {
	filter := seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy:     seccompPolicy(exec, spawn, nil),
	}
	// no_new_privs is set on the calling thread, then the filter is
	// loaded from the same one and synchronised to the others.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := seccomp.LoadFilter(filter); err != nil {
		return err
	}
	return nil
}

// seccompPolicy is the policy of refusedCalls and more (see loadSeccomp).
func seccompPolicy(exec, spawn bool, more []string) seccomp.Policy {
	refusedNames := append(refusedCalls[:len(refusedCalls):len(refusedCalls)], more...)
	if !exec {
		refusedNames = append(refusedNames, "execve", "execveat")
	}
	if !spawn {
		refusedNames = append(refusedNames, "fork", "vfork")
	}
	cloneCond := seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsNotSet, Value: unix.CLONE_THREAD}}
	if spawn {
		// A process may be made, but not in a new user namespace.
		cloneCond = seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: unix.CLONE_NEWUSER}}
	}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Names: refusedNames, Action: refused},
			{
				// A new process, not a thread: clone's flags are its
				// first argument on every architecture Go runs on
				// except s390x (not one we build for).
				NamesWithCondtions: []seccomp.NameWithConditions{{Name: "clone", Conditions: cloneCond}},
				Action:             refused,
			},
			{
				// socketpair(2) of AF_UNIX is a pipe with two ends
				// (Python's event loop wakes itself with one); any
				// other family is refused.
				NamesWithCondtions: []seccomp.NameWithConditions{{Name: "socketpair", Conditions: seccomp.ArgumentConditions{
					{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX},
				}}},
				Action: refused,
			},
			{Names: []string{"clone3"}, Action: noSuchCall},
		},
	}
}

// StackedFilter is a seccomp program (struct sock_filter records, in
// this machine's byte order) that a process already confined here loads
// on itself, on top of what it has, to refuse more of what its own
// program no longer needs: execve unless exec, new processes unless
// spawn, and the more calls named. The Python runtime loads it through
// prctl(PR_SET_SECCOMP) before any submitted code runs (pyrun): filters
// stack, and the strictest answer of all of them holds.
func StackedFilter(exec, spawn bool, more ...string) ([]byte, error) {
	policy := seccompPolicy(exec, spawn, more)
	insts, err := policy.Assemble()
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		f := unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
		out = append(out, unsafe.Slice((*byte)(unsafe.Pointer(&f)), unsafe.Sizeof(f))...)
	}
	return out, nil
}

func execProgram(argv []string) error {
	return syscall.Exec(argv[0], argv, os.Environ())
}

// libraryDirs are where a dynamically linked program's loader finds its
// libraries (Debian's multiarch directories are beneath them).
var libraryDirs = []string{"/etc/ld.so.cache", "/lib", "/lib64", "/usr/lib", "/usr/lib64"}

// dynamicLinking returns the ELF interpreter of a dynamically linked
// program (the kernel executes it, so it needs Landlock's execute right)
// and the library directories it reads; "" for a static program or one
// that cannot be read. A statically linked Go program (the native
// referee's) needs neither.
func dynamicLinking(exe string) (interp string, libs []string) {
	f, err := elf.Open(exe)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		data, err := io.ReadAll(p.Open())
		if err != nil {
			return "", nil
		}
		interp = strings.TrimRight(string(data), "\x00")
	}
	if interp == "" {
		return "", nil
	}
	for _, d := range libraryDirs {
		if _, err := os.Stat(d); err == nil {
			libs = append(libs, d)
		}
	}
	return interp, libs
}
