// Package pyenv says whether this machine may grade Python answers, and
// hands a grading child what it needs to: the interpreter the server found,
// how to start it confined (the server binary's sandbox.ConfineExecCommand
// and the Python policy), and the operator's leave to run it unconfined.
// It is the parent's side of the Python runtime (internal/faultsim/pyrun
// runs in the child) and imports nothing of the engine.
package pyenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// UnconfinedEnv, set to 1, lets Python grade without the kernel's
// confinement of the grading child: for tests and for an operator who
// accepts the risk.
const UnconfinedEnv = "FAULTLINE_PYTHON_UNCONFINED"

// Confined reports whether this host's kernel gives a Python process all
// of the confinement (sandbox.ConfinementReport.Complete): no network, no
// process past the zygote's lanes, no file written, none read outside the
// Python installation. Without it only UnconfinedEnv lets Python run.
func Confined() bool { return sandbox.Confinement().Complete() }

var python struct {
	once sync.Once
	path string
	read []string // the installation's library directories
	why  string
}

// ConfineEnv carries to a grading child the environment entry that
// confines a Python process (sandbox.ConfineExecEnv of Policy); the
// child's own binary applies it (sandbox.ConfineExecCommand).
const ConfineEnv = "FAULTLINE_PYTHON_CONFINE"

// Policy is what a Python process may reach: read its installation's
// library directories (its loader and shared libraries come with its
// Exec), execute python3 itself (and nothing after: the runtime stacks a
// filter refusing execve before any submitted code runs), make processes
// (the zygote forks its lanes; a lane stacks a filter refusing that), and
// write nothing.
func Policy(python string, read []string) sandbox.ConfinePolicy {
	return sandbox.ConfinePolicy{Read: read, Exec: []string{python}, Spawn: true}
}

// Launch is how a grading child starts python3 (pyrun): through Via (its
// own binary, the server's, as sandbox.ConfineExecCommand, then "--")
// with Env added when ConfineEnv says how to confine it; Via nil when the
// operator lets Python run unconfined. Why says why Python cannot run
// ("" when it can).
func Launch() (via []string, env []string, why string) {
	if entry := os.Getenv(ConfineEnv); entry != "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, "the grading child cannot name its own binary to confine python3 with: " + err.Error()
		}
		return []string{exe, sandbox.ConfineExecCommand, "--"}, []string{entry}, ""
	}
	if os.Getenv(UnconfinedEnv) == "1" {
		return nil, nil, ""
	}
	return nil, nil, "the Python process would not be confined by the kernel (set " + UnconfinedEnv + "=1 to grade Python without it)"
}

// PythonEnv names the interpreter a grading child runs: the server finds
// it (the child's environment has no PATH) and passes it on (ChildEnv).
const PythonEnv = "FAULTLINE_PYTHON"

// ChildEnv is what a grading child's environment needs for Python: the
// interpreter this process found, and the leave to run it unconfined if
// this process has it.
func ChildEnv() []string {
	var env []string
	if os.Getenv(UnconfinedEnv) == "1" {
		env = append(env, UnconfinedEnv+"=1")
	}
	p, why := Available()
	if why != "" {
		return append(env, WhyEnv+"="+why)
	}
	env = append(env, PythonEnv+"="+p)
	if entry := sandbox.ConfineExecEnv(Policy(p, python.read)); entry != "" {
		env = append(env, ConfineEnv+"="+entry)
	}
	return env
}

// Installation is the interpreter Available found and its library
// directories (what Policy reads), or why there is none.
func Installation() (path string, read []string, why string) {
	p, why := Available()
	if why != "" {
		return "", nil, why
	}
	return p, python.read, ""
}

// WhyEnv carries to a grading child why its parent found Python cannot be
// graded here (Available): the child, which cannot probe the kernel or
// look for python3, says the parent's reason.
const WhyEnv = "FAULTLINE_PYTHON_UNAVAILABLE"

// ChildPython is the interpreter a grading child's parent found
// (ChildEnv), "" if none.
func ChildPython() string { return os.Getenv(PythonEnv) }

// Available says whether Python submissions can be graded here: the
// interpreter to run, or why not ("" when they can).
func Available() (path, why string) { return Python("") }

// Python is Available with the interpreter want, when the caller knows it
// (a grading child, from ChildPython: its parent found it Available, and
// the child, which cannot probe the kernel, takes its word).
func Python(want string) (string, string) {
	if want != "" {
		return want, ""
	}
	if why := os.Getenv(WhyEnv); why != "" {
		return "", why
	}
	if os.Getenv(UnconfinedEnv) != "1" && !Confined() {
		return "", "the grading child is not confined by the kernel (" + strings.Join(sandbox.Confinement().Missing(), "; ") +
			"; set " + UnconfinedEnv + "=1 to grade Python without it)"
	}
	python.once.Do(func() {
		p, err := exec.LookPath("python3")
		if err != nil {
			python.why = "python3 is not installed (Debian: apt-get install python3)"
			return
		}
		// The interpreter itself, not a wrapper that finds it (pyenv's
		// shims are shell scripts): a grade starts it once, a child
		// without PATH starts it by this name.
		out, err := exec.Command(p, "-S", "-c", "import sys, sysconfig; print(sys.version_info >= (3, 11), sys.executable); "+
			"print(*sorted({sysconfig.get_path('stdlib'), sysconfig.get_path('platstdlib')}), sep='\\n')").Output()
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		ok, exe, _ := strings.Cut(lines[0], " ")
		if err != nil || ok != "True" {
			python.why = p + " is not Python 3.11 or later"
			return
		}
		python.path = p
		if exe != "" {
			python.path = exe
		}
		// The library directories, and libpython beside them (a Python
		// built with --enable-shared, as pyenv's are).
		for _, d := range lines[1:] {
			if d != "" {
				python.read = append(python.read, d, filepath.Dir(d))
			}
		}
	})
	return python.path, python.why
}
