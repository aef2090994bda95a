// Package nativebuild is the native side of a kit's differential test: it
// writes natively compiled copies of submissions (interpreted.NativeSource),
// builds them with the go tool into one program beside a driver that
// grades each through native.NativeCopies, runs it, and returns the
// reports, to compare with the interpreted route's. Only tests use it.
package nativebuild

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/interpreted"
)

// Program is how the driver finds the kit and its scenarios.
type Program struct {
	Kit faultsim.Kit
	// KitImport is the import path of the kit's package, and KitValue an
	// expression of the kit in it, in that package's name ("tally.Kit{}").
	KitImport, KitValue string
	// ScenariosFile is the scenarios file the driver parses with
	// Kit.ParseScenarios.
	ScenariosFile string
	// Copies is how many copies of each submission the program holds:
	// the most workers a grade has loaded at once.
	Copies int
}

// Submission is one source file to grade natively.
type Submission struct {
	Name, Filename, Source string
}

// Job is one grade of every submission.
type Job struct {
	Seeds     int
	FirstSeed int64
	Lanes     int
	// Scenarios are the names graded; empty: every one.
	Scenarios []string
}

// Reports builds subs into one program, in a directory it makes and
// removes inside dir (which must lie inside the module, for its internal
// packages), and grades each submission on each job. It returns, by
// submission name, one report per job in job order: the report's JSON as
// json.MarshalIndent(rep, "", " ") writes it, or with hash set the
// SHA-256 of that JSON, in hex (a sweep's reports would be gigabytes).
func (p Program) Reports(t testing.TB, dir string, subs []Submission, jobs []Job, hash bool) map[string][]string {
	t.Helper()
	mod, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		t.Fatalf("nativebuild: go list -m: %v", err)
	}
	modPath, modDir, _ := strings.Cut(strings.TrimSpace(string(mod)), " ")
	// A leading underscore keeps the go tool's ./... patterns (vet, test)
	// out of a directory a killed test left behind.
	tmp, err := os.MkdirTemp(dir, "_nativebuild")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	abs, err := filepath.Abs(tmp)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(modDir, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("nativebuild: %s is not inside the module at %s", abs, modDir)
	}
	base := modPath + "/" + filepath.ToSlash(rel)

	var imports, table strings.Builder
	for i, s := range subs {
		files, err := interpreted.NativeSource(p.Kit, s.Filename, s.Source)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		fmt.Fprintf(&table, "\t\t{%q, func() []native.NativeCopy { return []native.NativeCopy{", s.Name)
		for c := 0; c < p.Copies; c++ {
			pkg := fmt.Sprintf("s%dc%d", i, c)
			for name, text := range map[string]string{filepath.Base(s.Filename): files.Source, "faultline_native.go": files.Shim} {
				if err := os.MkdirAll(filepath.Join(tmp, pkg), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(tmp, pkg, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			fmt.Fprintf(&imports, "\t%s %q\n", pkg, base+"/"+pkg)
			fmt.Fprintf(&table, "%s.%s(), ", pkg, interpreted.NativeCopyFunc)
		}
		table.WriteString("} }},\n")
	}
	scenarios, err := filepath.Abs(p.ScenariosFile)
	if err != nil {
		t.Fatal(err)
	}
	main := fmt.Sprintf(driver, p.KitImport, imports.String(), scenarios, p.KitValue, table.String())
	if err := os.WriteFile(filepath.Join(tmp, "main.go"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
	jobsFile := filepath.Join(abs, "jobs.json")
	data, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(jobsFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(abs, "driver")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = abs
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("nativebuild: go build: %v\n%s", err, out)
	}
	var stderr bytes.Buffer
	run := exec.Command(bin)
	run.Env = append(os.Environ(), "FAULTLINE_NATIVE_JOBS="+jobsFile)
	if hash {
		run.Env = append(run.Env, "FAULTLINE_NATIVE_HASH=1")
	}
	run.Stderr = &stderr
	out, err := run.Output()
	if err != nil {
		t.Fatalf("nativebuild: the native program: %v\n%s", err, stderr.String())
	}
	reports := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue // the testing framework's PASS
		}
		idx, body, _ := strings.Cut(rest, "\t")
		if n, err := strconv.Atoi(idx); err != nil || n != len(reports[name]) {
			t.Fatalf("nativebuild: report %q of %s out of order", idx, name)
		}
		if !hash {
			var b bytes.Buffer
			if err := json.Indent(&b, []byte(body), "", " "); err != nil {
				t.Fatalf("nativebuild: %s: not a report: %v", name, err)
			}
			body = b.String()
		}
		reports[name] = append(reports[name], body)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, s := range subs {
		if len(reports[s.Name]) != len(jobs) {
			t.Fatalf("nativebuild: %s: %d reports, want %d\n%s", s.Name, len(reports[s.Name]), len(jobs), stderr.String())
		}
	}
	return reports
}

// driver grades every submission on every job and prints one line per
// report: the submission, the job's index and the report's JSON (or its
// SHA-256).
const driver = `package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/faultsim/bubble"
	"github.com/faultline-dev/faultline/internal/faultsim/native"
	%q
%s)

type job struct {
	Seeds     int
	FirstSeed int64
	Lanes     int
	Scenarios []string
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

func main() {
	const scenariosFile = %q
	k := faultsim.Kit(%s)
	subs := []struct {
		name   string
		copies func() []native.NativeCopy
	}{
%s	}
	data, err := os.ReadFile(os.Getenv("FAULTLINE_NATIVE_JOBS"))
	if err != nil {
		fail(err)
	}
	var jobs []job
	if err := json.Unmarshal(data, &jobs); err != nil {
		fail(err)
	}
	hash := os.Getenv("FAULTLINE_NATIVE_HASH") != ""
	data, err = os.ReadFile(scenariosFile)
	if err != nil {
		fail(err)
	}
	all, err := k.ParseScenarios(scenariosFile, data)
	if err != nil {
		fail(err)
	}
	bubble.InProcess(func(b faultsim.Bubble) {
		for _, s := range subs {
			for i, j := range jobs {
				scs := all
				if len(j.Scenarios) > 0 {
					scs = nil
					for _, sc := range all {
						if slices.Contains(j.Scenarios, sc.Plan().Name) {
							scs = append(scs, sc)
						}
					}
				}
				prog := &native.NativeCopies{Kit: k, Copies: s.copies()}
				rep, err := faultsim.Grade(context.Background(), k, scs, prog, b, faultsim.Options{Seeds: j.Seeds, FirstSeed: j.FirstSeed, Lanes: j.Lanes})
				if err != nil {
					fail(fmt.Errorf("%%s: %%w", s.name, err))
				}
				out, err := json.Marshal(rep)
				if err != nil {
					fail(err)
				}
				if hash {
					var b []byte
					b, _ = json.MarshalIndent(rep, "", " ")
					fmt.Printf("%%s\t%%d\t%%x\n", s.name, i, sha256.Sum256(b))
					continue
				}
				fmt.Printf("%%s\t%%d\t%%s\n", s.name, i, out)
			}
		}
	})
}
`

// Hash is how Reports with hash set digests the interpreted side's
// report, for the comparison.
func Hash(rep *faultsim.Report) (string, error) {
	b, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", sha256.Sum256(b)), nil
}
