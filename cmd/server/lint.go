package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/internal/problems"
)

// lintCommand checks a content folder: `server lint [DIR]` (default
// content). It prints every diagnostic as DIR/file:line: message and exits 1
// when there are any, 2 when the folder cannot be read. Once the content
// loads clean it grades each kit problem's reference against its scenarios
// (in the sandboxed child), so a scenario no correct solution can pass is
// named at its line too.
func lintCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("lint", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: server lint [DIR]\n\nChecks every content file under DIR (default: content) and prints each error with file and line, then grades each kit problem's reference against its scenarios: a scenario the reference fails is an error at its line.")
	}
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() > 1 {
		flags.Usage()
		return 2
	}
	dir := "content"
	if flags.NArg() == 1 {
		dir = flags.Arg(0)
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		fmt.Fprintf(stderr, "lint: %s is not a readable folder\n", dir)
		return 2
	}
	cat, err := problems.LoadWith(os.DirFS(dir), contentOptions())
	if diags, ok := contentDiagnostics(err); ok {
		printDiagnostics(stdout, dir, diags)
		fmt.Fprintf(stderr, "lint: %d error%s in %s\n", len(diags), pluralS(len(diags)), dir)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "lint: %v\n", err)
		return 2
	}
	diags, err := referenceDiagnostics(ctx, cat, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	var errs, warns []problems.Diagnostic
	for _, d := range diags {
		if d.Warning {
			warns = append(warns, d)
		} else {
			errs = append(errs, d)
		}
	}
	if len(warns) > 0 {
		printDiagnostics(stdout, dir, warns)
		fmt.Fprintf(stderr, "lint: %d warning%s in %s\n", len(warns), pluralS(len(warns)), dir)
	}
	if len(errs) > 0 {
		printDiagnostics(stdout, dir, errs)
		fmt.Fprintf(stderr, "lint: %d error%s in %s\n", len(errs), pluralS(len(errs)), dir)
		return 1
	}
	fmt.Fprintf(stdout, "ok: %d problem%s, %d set%s, %d screen%s\n",
		len(cat.Problems), pluralS(len(cat.Problems)), len(cat.Sets), pluralS(len(cat.Sets)),
		len(cat.Screens), pluralS(len(cat.Screens)))
	return 0
}

// loadContent loads the content folder dir, or the embedded content when dir
// is empty. The returned root names where the files are, for diagnostics.
func loadContent(dir string, embedded fs.FS) (cat *problems.Catalog, root string, err error) {
	fsys, root := embedded, "content"
	if dir != "" {
		fsys, root = os.DirFS(dir), dir
	}
	cat, err = problems.LoadWith(fsys, contentOptions())
	return cat, root, err
}

// contentDiagnostics unpacks a content error.
func contentDiagnostics(err error) ([]problems.Diagnostic, bool) {
	var ce *problems.ContentError
	if errors.As(err, &ce) {
		return ce.Diagnostics, true
	}
	return nil, false
}

// printDiagnostics prints one diagnostic a line, with paths under root so an
// editor can jump to them.
func printDiagnostics(w io.Writer, root string, diags []problems.Diagnostic) {
	for _, d := range diags {
		d.File = filepath.Join(root, filepath.FromSlash(d.File))
		fmt.Fprintln(w, d.String())
	}
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
