package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// logConfinement says at start-up how the kernel confines the grading
// children (issue 31): all of it, or which parts this host lacks. Go
// grading runs either way (the interpreter's import allowlist is its
// first wall); a runtime that can import anything needs all of it
// (sandbox.ConfinementReport.Complete).
func logConfinement(log *slog.Logger) {
	c := sandbox.Confinement()
	if c.Complete() {
		log.Info("serve: " + c.String())
		return
	}
	log.Warn("serve: "+c.String()+"; Go grading runs with what there is", slog.Bool("complete", false))
}

// logPython says at start-up whether Python answers can be graded here,
// and how: by python3 processes the kernel confines (each started through
// confineExecCommand by a grading child that runs no submitted code), or,
// only with the operator's leave (pyenv.UnconfinedEnv), by unconfined
// ones, which is said loudly.
func logPython(log *slog.Logger) {
	python, why := pyenv.Available()
	switch {
	case why != "":
		log.Info("serve: Python answers cannot be graded: " + why)
	case pyenv.Confined():
		log.Info("serve: Python answers are graded by " + python + ", confined by the kernel")
	default:
		log.Warn("serve: UNCONFINED: Python answers are graded by "+python+" without all of the kernel's confinement, "+
			"by the operator's leave: submitted Python may reach what this server reaches",
			slog.String("env", pyenv.UnconfinedEnv+"=1"), slog.Any("missing", sandbox.Confinement().Missing()))
	}
}

// confineExecCommand is the hidden mode (sandbox.ConfineExecCommand) a
// Runner starts in front of a child that cannot confine itself: it
// confines this process and executes "-- PROGRAM ARGS...". It returns
// only when it could not.
func confineExecCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	sandbox.ExitConfineFailed(sandbox.ConfineAndExec(args))
	return 2
}
