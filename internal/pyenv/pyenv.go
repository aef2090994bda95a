// Package pyenv says whether this machine may grade Python answers, and
// hands a grading child what it needs to: the interpreter the server found
// and the operator's leave to run it unconfined. It is the parent's side
// of the Python runtime (internal/faultsim/pyrun runs in the child) and
// imports nothing of the engine.
package pyenv

import (
	"os"
	"os/exec"
	"strings"
	"sync"
)

// UnconfinedEnv, set to 1, lets Python grade without the kernel's
// confinement of the grading child: for tests and for an operator who
// accepts the risk.
const UnconfinedEnv = "FAULTLINE_PYTHON_UNCONFINED"

// Confined reports whether the grading child runs confined by the kernel
// (no network, no new processes past the zygote's, no writes outside its
// scratch directory). Until internal/sandbox reports confinement
// (sandbox.Confinement), nothing here is confined, and only UnconfinedEnv
// lets Python run.
func Confined() bool { return false }

var python struct {
	once sync.Once
	path string
	why  string
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
	if p, why := Available(); why == "" {
		env = append(env, PythonEnv+"="+p)
	}
	return env
}

// ChildPython is the interpreter a grading child's parent found
// (ChildEnv), "" if none.
func ChildPython() string { return os.Getenv(PythonEnv) }

// Available says whether Python submissions can be graded here: the
// interpreter to run, or why not ("" when they can).
func Available() (path, why string) { return Python("") }

// Python is Available with the interpreter want, when the caller knows it
// (a grading child, from ChildPython).
func Python(want string) (string, string) {
	if !Confined() && os.Getenv(UnconfinedEnv) != "1" {
		return "", "the grading child is not confined by the kernel (set " + UnconfinedEnv + "=1 to grade Python without it)"
	}
	if want != "" {
		return want, ""
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
		out, err := exec.Command(p, "-S", "-c", "import sys; print(sys.version_info >= (3, 11), sys.executable)").Output()
		ok, exe, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
		if err != nil || ok != "True" {
			python.why = p + " is not Python 3.11 or later"
			return
		}
		python.path = p
		if exe != "" {
			python.path = exe
		}
	})
	return python.path, python.why
}
