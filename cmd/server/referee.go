package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/sandbox"
	"github.com/faultline-dev/faultline/internal/storage"
)

// refereeFlags are the native referee's flags, shared by serve and grade:
// whether to referee, and where its module tree and build cache live.
type refereeFlags struct {
	on    bool
	cache string
	// gocache is the go tool's build cache (FAULTLINE_REFEREE_GOCACHE);
	// empty keeps it in cache.
	gocache string
}

func (f *refereeFlags) define(flags *flag.FlagSet, env func(name, fallback string) string) {
	on := env("FAULTLINE_REFEREE", "true")
	flags.BoolVar(&f.on, "referee", on != "false" && on != "0",
		"check each grade's verdict by building the code natively with the go tool on PATH (env FAULTLINE_REFEREE)")
	flags.StringVar(&f.cache, "referee-cache", env("FAULTLINE_REFEREE_CACHE", grading.DefaultRefereeCacheDir()),
		"the native referee's module tree and build cache (env FAULTLINE_REFEREE_CACHE)")
	f.gocache = env("FAULTLINE_REFEREE_GOCACHE", "")
}

// newReferee is the referee for a service whose children run under
// limits, concurrent at once; nil when turned off.
func (f refereeFlags) newReferee(limits sandbox.Limits, concurrent int) *grading.Referee {
	if !f.on {
		return nil
	}
	r := grading.NewReferee(f.cache, limits, concurrent)
	r.GoCache = f.gocache
	if self, err := os.Executable(); err == nil {
		// The native program links no sandbox code: this binary confines
		// itself and then executes it.
		r.ConfineVia = []string{self, sandbox.ConfineExecCommand}
	}
	return r
}

// refereeStoreLog keeps the referee's disagreements in the store.
type refereeStoreLog struct{ store *storage.Store }

func (l refereeStoreLog) LogDisagreement(ctx context.Context, d grading.Disagreement) error {
	_, err := l.store.LogRefereeDisagreement(ctx, storage.RefereeDisagreement{Problem: d.Problem, Kit: d.Kit,
		SourceHash: d.SourceHash, Source: d.Source, Interpreted: d.Interpreted, Native: d.Native})
	return err
}

const refereeWarmUsage = `usage: server referee-warm [-referee-cache DIR]

Compiles what every native referee build links (the standard packages, the
grading engine, the kits) into the referee's build cache, so that the first
Grade's referee build is as fast as any later one. The Docker image runs it
when it is built; serve also does it in the background at start-up.

Flags:
`

// refereeWarmCommand is `server referee-warm`.
func refereeWarmCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("referee-warm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var ref refereeFlags
	ref.define(fs, envOr)
	fs.Usage = func() {
		fmt.Fprint(stderr, refereeWarmUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	ref.on = true
	start := time.Now()
	if err := ref.newReferee(sandbox.DefaultLimits(), 1).Warm(ctx); err != nil {
		fmt.Fprintf(stderr, "referee-warm: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "The native referee's cache in %s is warm (%s).\n", ref.cache, time.Since(start).Round(time.Millisecond))
	return 0
}

const refereeLogUsage = `usage: server referee-log [-db DB] [-n N] [-source ID]

Lists the grades the native referee overruled, newest first: the code the
interpreter graded to one verdict and the same code, compiled natively by the
Go toolchain, to another. Each is an interpreter fault to find. With -source ID
it prints that disagreement's source instead.

Flags:
`

// refereeLogCommand is `server referee-log`.
func refereeLogCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("referee-log", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", envOr("FAULTLINE_DB", "./data/faultline.db"), "SQLite database file or postgres:// URL (env FAULTLINE_DB)")
	n := fs.Int("n", 50, "how many to list")
	source := fs.Int64("source", 0, "print the source of the disagreement with this id")
	fs.Usage = func() {
		fmt.Fprint(stderr, refereeLogUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *n < 1 {
		fs.Usage()
		return 2
	}
	store, err := storage.Open(ctx, *db)
	if err != nil {
		fmt.Fprintf(stderr, "referee-log: %v\n", err)
		return 1
	}
	defer store.Close()
	list, err := store.RefereeDisagreements(ctx, max(*n, 10000*boolInt(*source != 0)), *source != 0)
	if err != nil {
		fmt.Fprintf(stderr, "referee-log: %v\n", err)
		return 1
	}
	if *source != 0 {
		for _, d := range list {
			if d.ID == *source {
				fmt.Fprint(stdout, d.Source)
				return 0
			}
		}
		fmt.Fprintf(stderr, "referee-log: no disagreement %d\n", *source)
		return 1
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "The native referee has overruled no grade.")
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME (UTC)\tPROBLEM\tSOURCE SHA-256\tINTERPRETED\tNATIVE")
	for _, d := range list {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", d.ID, d.At.UTC().Format("2006-01-02 15:04:05"), d.Problem, d.SourceHash[:min(16, len(d.SourceHash))], d.Interpreted, d.Native)
	}
	tw.Flush()
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// envOr is the environment variable name, or fallback when it is empty.
func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
