package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Confinement by the kernel (issue 31). Limits bound what a child may
// use; confinement bounds what it may reach. A confined child, from the
// moment it calls ConfineSelf (before it reads its job, so before any
// submitted code runs), cannot:
//
//   - reach a network: it runs in new user and network namespaces where
//     the host allows them (Runner.NoNamespaces), and seccomp refuses
//     socket(2) of every family (a connected AF_UNIX pair from
//     socketpair(2) stays allowed: it reaches nothing outside the child);
//     Landlock (ABI 4 and up) refuses TCP bind and connect besides;
//   - make a process: seccomp refuses fork, vfork, clone without
//     CLONE_THREAD (threads, which the Go runtime makes, are allowed) and
//     clone3 (ENOSYS, so a C library falls back to clone), and execve
//     unless the policy names programs to execute;
//   - write outside its scratch directory, or read outside what the
//     runtime needs (Landlock): the time zone files, /dev/null and
//     /dev/urandom, its own /proc/self/fd, and the policy's Read paths;
//   - signal a process or reach an abstract UNIX socket outside its own
//     Landlock domain (Landlock ABI 6), or use what escapes the rest:
//     io_uring, ptrace, mount, namespaces, bpf, perf, keyrings, modules.
//
// Seccomp here is a list of refusals, not of what is allowed: everything
// else the runtime calls stays allowed. The host's kernel may lack a
// part; Confinement says which, once, and a Runner asks its children for
// what the kernel has.

// ConfinePolicy is what a confined child may still reach. The zero value
// is the tightest: nothing written, nothing read beyond the runtime's
// needs, nothing executed.
type ConfinePolicy struct {
	// Scratch is the one directory the child may write in (created by the
	// caller); empty means none. RLIMIT_FSIZE (Limits) still caps what is
	// written.
	Scratch string `json:"scratch,omitempty"`
	// Read are files or directories the child may read besides the
	// runtime's needs (a language runtime's library, say).
	Read []string `json:"read,omitempty"`
	// Exec are programs the child may execute (and read); empty means the
	// child executes nothing.
	Exec []string `json:"exec,omitempty"`
	// Spawn lets the child make processes (fork, clone without
	// CLONE_THREAD): a grading child of a Python job starts its Python
	// processes, a Python zygote forks its lanes. What any of them may
	// execute is still only Exec. False refuses every new process.
	Spawn bool `json:"spawn,omitempty"`
	// ExecSelf adds the child's own binary (the Runner's executable) to
	// Exec: a child that starts itself again as ConfineExecCommand.
	ExecSelf bool `json:"-"`
}

// confineEnvName carries the confinement a child must apply to itself:
// the policy and the parts the parent found the kernel has.
const confineEnvName = "SANDBOX_CONFINE"

// confineRequest is confineEnvName's value, as JSON.
type confineRequest struct {
	ConfinePolicy
	// Landlock is the Landlock ABI to apply (0: none); Seccomp whether to
	// load the seccomp filter.
	Landlock int  `json:"landlock"`
	Seccomp  bool `json:"seccomp"`
}

// ConfineExitCode is what a child exits with when it was asked for a
// confinement it could not apply: it runs nothing unconfined, and the
// parent reports a fault of the sandbox, not of the submission.
const ConfineExitCode = 125

// confineFailPrefix starts the one line such a child writes on stderr.
const confineFailPrefix = "sandbox: cannot confine this child: "

// ErrConfine is the error of a Run whose child could not confine itself.
var ErrConfine = errors.New("sandbox: the child could not confine itself")

// ConfinementReport says which parts of the confinement this host's
// kernel gives a child. Python grading needs them all (Complete); Go
// grading runs without the missing ones (the interpreter's import
// allowlist is its first wall) and the server says so at start-up.
type ConfinementReport struct {
	// LandlockABI is the kernel's Landlock ABI version; 0 means none
	// (not built, not enabled in the boot's lsm= list, or refused).
	LandlockABI int
	// LandlockErr says why there is no Landlock, when there is none.
	LandlockErr string
	// Seccomp reports whether a seccomp filter can be loaded.
	Seccomp bool
	// SeccompErr says why not, when not.
	SeccompErr string
	// Namespaces reports whether a child can be started in new user and
	// network namespaces; NamespacesErr says why not.
	Namespaces    bool
	NamespacesErr string
}

// Complete reports whether every part is there: no network, no new
// process, no file outside the scratch directory.
func (c ConfinementReport) Complete() bool {
	return c.LandlockABI > 0 && c.Seccomp && c.Namespaces
}

// Missing names the parts the kernel does not give, with why.
func (c ConfinementReport) Missing() []string {
	var m []string
	if c.LandlockABI == 0 {
		m = append(m, "Landlock (files): "+c.LandlockErr)
	}
	if !c.Seccomp {
		m = append(m, "seccomp (sockets, processes): "+c.SeccompErr)
	}
	if !c.Namespaces {
		m = append(m, "user and network namespaces: "+c.NamespacesErr)
	}
	return m
}

// String is the report in one line, for the server's start-up log.
func (c ConfinementReport) String() string {
	var have []string
	if c.LandlockABI > 0 {
		have = append(have, fmt.Sprintf("Landlock ABI %d", c.LandlockABI))
	}
	if c.Seccomp {
		have = append(have, "seccomp")
	}
	if c.Namespaces {
		have = append(have, "user+network namespaces")
	}
	s := "grading children are confined by " + strings.Join(have, ", ")
	if len(have) == 0 {
		s = "grading children are not confined by the kernel"
	}
	if m := c.Missing(); len(m) > 0 {
		s += "; missing: " + strings.Join(m, "; ")
	}
	return s
}

// confineEnv is the environment entry asking a child for policy, under
// what the kernel has; "" when it has nothing to apply.
func confineEnv(policy ConfinePolicy, have ConfinementReport) string {
	req := confineRequest{ConfinePolicy: policy, Landlock: have.LandlockABI, Seccomp: have.Seccomp}
	if req.Landlock == 0 && !req.Seccomp {
		return ""
	}
	data, _ := json.Marshal(req)
	return confineEnvName + "=" + string(data)
}

// ConfineSelf applies to this process the confinement its parent asked
// for (a Runner with Confine set); it does nothing when none was asked. A
// child calls it first, before it reads its job. Confinement holds for
// every thread, now and later, and for any program the process executes;
// it cannot be undone.
//
// On an error the caller must not go on: ExitConfineFailed says so and
// exits.
func ConfineSelf() error {
	value, ok := os.LookupEnv(confineEnvName)
	if !ok {
		return nil
	}
	os.Unsetenv(confineEnvName) // nothing the submission needs to see
	var req confineRequest
	if err := json.Unmarshal([]byte(value), &req); err != nil {
		return fmt.Errorf("%s: %w", confineEnvName, err)
	}
	return applyConfinement(req)
}

// ExitConfineFailed writes err where the parent looks for it and exits
// with ConfineExitCode: Run then returns ErrConfine.
func ExitConfineFailed(err error) {
	fmt.Fprintln(os.Stderr, confineFailPrefix+err.Error())
	os.Exit(ConfineExitCode)
}

// confined is the command line that starts the child exe with the
// Runner's Args (after prlimit's "--"), and env with the confinement the
// child must apply added, when the Runner asks for one and the kernel has
// any of it.
func (r *Runner) confined(exe string, env []string) (argv, withEnv []string) {
	return r.confinedBy(Confinement(), exe, env)
}

// confinedBy is confined on a kernel that has what have says.
func (r *Runner) confinedBy(have ConfinementReport, exe string, env []string) (argv, withEnv []string) {
	argv = append([]string{exe}, r.Args...)
	if r.Confine == nil {
		return argv, env
	}
	policy := *r.Confine
	if policy.ExecSelf {
		policy.Exec = append(policy.Exec[:len(policy.Exec):len(policy.Exec)], exe)
	}
	via := len(r.ConfineVia) > 0
	if via {
		policy.Exec = append(policy.Exec[:len(policy.Exec):len(policy.Exec)], exe)
		if interp, libs := dynamicLinking(exe); interp != "" {
			policy.Exec = append(policy.Exec, interp)
			policy.Read = append(policy.Read[:len(policy.Read):len(policy.Read)], libs...)
		}
	}
	kv := confineEnv(policy, have)
	if kv == "" {
		return argv, env // the kernel has nothing to confine with
	}
	if via {
		argv = append(append(r.ConfineVia[:len(r.ConfineVia):len(r.ConfineVia)], "--"), argv...)
	}
	return argv, append(env, kv)
}

// ConfineExecEnv is the environment entry that has ConfineExecCommand
// (ConfineAndExec) confine itself under policy, with what this host's
// kernel has of the confinement, before it executes the program named on
// its command line; "" when the kernel has nothing to confine with. A
// program of policy.Exec may execute its ELF loader and read its
// libraries besides (restrictPaths).
func ConfineExecEnv(policy ConfinePolicy) string {
	return confineEnv(policy, Confinement())
}

// confineFailed is ErrConfine with the child's reason when the child
// exited because it could not confine itself (ExitConfineFailed).
func (c *child) confineFailed() error {
	ps := c.cmd.ProcessState
	if ps == nil || ps.ExitCode() != ConfineExitCode {
		return nil
	}
	stderr := string(c.stderr.Bytes())
	i := strings.Index(stderr, confineFailPrefix)
	if i < 0 {
		return nil
	}
	why, _, _ := strings.Cut(stderr[i+len(confineFailPrefix):], "\n")
	return fmt.Errorf("%w: %s", ErrConfine, why)
}

// ConfineExecCommand is the hidden subcommand of the server binary that
// confines itself and then executes the program its arguments name
// (ConfineAndExec): a child that cannot call ConfineSelf itself (the
// native referee's program, a language runtime) is confined through it
// (Runner.ConfineVia).
const ConfineExecCommand = "__confine-exec"

// ConfineAndExec applies the confinement asked for in the environment
// (as ConfineSelf), then replaces this process with argv[0] run with
// argv. The confinement holds in the program executed: Landlock and
// seccomp pass through execve. It returns only on an error.
func ConfineAndExec(argv []string) error {
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return errors.New("no program to execute")
	}
	if _, ok := os.LookupEnv(confineEnvName); !ok {
		// Started by hand, or by a Runner without Confine: executing
		// unconfined would defeat the point of coming here.
		return fmt.Errorf("%s is not set: nothing says how to confine %s", confineEnvName, argv[0])
	}
	if err := ConfineSelf(); err != nil {
		return err
	}
	return execProgram(argv)
}
