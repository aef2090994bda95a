package pyenv

import (
	"os"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/sandbox"
)

// TestLaunch: a grading child starts python3 through its own binary's
// confining mode when its parent said how to confine it, directly only
// with the operator's leave, and not at all otherwise.
func TestLaunch(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, confine, unconfined string
		via                       []string
		env                       []string
		why                       string
	}{
		{"confined", "SANDBOX_CONFINE={}", "", []string{self, sandbox.ConfineExecCommand, "--"}, []string{"SANDBOX_CONFINE={}"}, ""},
		{"confined, leave or not", "SANDBOX_CONFINE={}", "1", []string{self, sandbox.ConfineExecCommand, "--"}, []string{"SANDBOX_CONFINE={}"}, ""},
		{"unconfined by leave", "", "1", nil, nil, ""},
		{"neither", "", "", nil, nil, "would not be confined by the kernel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(ConfineEnv, tc.confine)
			t.Setenv(UnconfinedEnv, tc.unconfined)
			via, env, why := Launch()
			if strings.Join(via, " ") != strings.Join(tc.via, " ") || strings.Join(env, " ") != strings.Join(tc.env, " ") ||
				(tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
				t.Errorf("Launch() = %q, %q, %q; want %q, %q, %q", via, env, why, tc.via, tc.env, tc.why)
			}
		})
	}
}

// TestPolicy: the Python policy executes python3 alone, may make
// processes (the zygote's lanes), and writes nothing.
func TestPolicy(t *testing.T) {
	p := Policy("/usr/bin/python3", []string{"/usr/lib/python3.11"})
	if len(p.Exec) != 1 || p.Exec[0] != "/usr/bin/python3" || !p.Spawn || p.Scratch != "" || p.ExecSelf {
		t.Errorf("Policy = %+v", p)
	}
}

// TestChildTakesItsParentsWord: a grading child says its parent's reason
// Python cannot run, and takes the interpreter its parent found.
func TestChildTakesItsParentsWord(t *testing.T) {
	t.Setenv(WhyEnv, "python3 is not installed (Debian: apt-get install python3)")
	if p, why := Python(""); p != "" || why != "python3 is not installed (Debian: apt-get install python3)" {
		t.Errorf("Python(\"\") = %q, %q; want the parent's reason", p, why)
	}
	if p, why := Python("/usr/bin/python3"); p != "/usr/bin/python3" || why != "" {
		t.Errorf("Python(want) = %q, %q; want want", p, why)
	}
}
