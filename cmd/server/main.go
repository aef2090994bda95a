// Command server is Faultline in one binary: the web app (serve, the
// default), the content checker (lint) and, added by the grader, grading
// from the command line. Each subcommand is one entry in the table below.
package main

import (
	"context"
	"fmt"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// subcommand is one mode of the binary. run returns the process exit code.
type subcommand struct {
	name    string
	summary string // one line for the usage text; hidden when empty
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// subcommands are the binary's modes; the first is the default.
var subcommands = []subcommand{
	{"serve", "run the web app (the default; with -content DIR -watch, it reloads DIR as it is edited)", serveCommand},
	{"lint", "check content files and print every error with file and line", lintCommand},
	{"grade", "grade a code problem's submission in a sandboxed child and print the report", gradeCommand},
	{"referee-log", "list the grades the native referee overruled (the interpreter's faults)", refereeLogCommand},
	{"referee-warm", "fill the native referee's build cache, so the first Grade's check is fast", refereeWarmCommand},
	{gradewire.ChildCommand, "", gradeChildCommand},      // hidden: the sandboxed grading child
	{sandbox.ConfineExecCommand, "", confineExecCommand}, // hidden: confines the native referee's program
}

func main() {
	// SIGINT and SIGTERM cancel ctx: serve then finishes in-flight requests.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch runs the subcommand named by the first argument, or serve when
// the arguments start with a flag or are empty.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	name := subcommands[0].name
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage(stdout)
		return 0
	}
	for _, sc := range subcommands {
		if sc.name == name {
			return sc.run(ctx, args, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "server: unknown subcommand %q\n\n", name)
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: server [subcommand] [flags]")
	fmt.Fprintln(w)
	for _, sc := range subcommands {
		if sc.summary != "" {
			fmt.Fprintf(w, "  %-12s %s\n", sc.name, sc.summary)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'server SUBCOMMAND -h' for its flags.")
}
