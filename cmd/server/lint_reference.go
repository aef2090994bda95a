package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gradewire"
	"github.com/faultline-dev/faultline/internal/grading"
	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/pyenv"
	"github.com/faultline-dev/faultline/internal/sandbox"
)

// lintReferenceSeeds is how many schedules each scenario's reference run
// explores in lint: the grade's own default, so a scenario lint passes is
// one a user's grade judges the same way.
const lintReferenceSeeds = grading.DefaultSeeds

// referenceDiagnostics grades each kit problem's reference against its
// scenarios, in a sandboxed child as any grade, and returns a diagnostic at
// the line of every scenario the reference fails: no correct solution can
// pass a scenario the reference fails, so the scenario is wrong. A
// scenario whose scripted faults do not all fire against the reference
// gets a warning (see faultWarnings). Content that does not load is not
// looked at (its diagnostics come first).
func referenceDiagnostics(ctx context.Context, cat *problems.Catalog, stderr io.Writer) ([]problems.Diagnostic, error) {
	var svc *grading.Service
	var out []problems.Diagnostic
	for _, p := range cat.Problems {
		if p.Code == nil || p.Code.ScenariosPath == "" {
			continue
		}
		i := slices.IndexFunc(gradingKits(), func(k faultsim.Kit) bool { return k.Name() == p.Code.Kit })
		if i < 0 {
			return nil, fmt.Errorf("lint: problem %s: the grading child has no kit %q", p.Slug, p.Code.Kit)
		}
		scenarios, err := gradingKits()[i].ParseScenarios(p.Code.ScenariosPath, []byte(p.Code.Scenarios))
		if err != nil {
			return nil, fmt.Errorf("lint: %s parsed at load but not now: %w", p.Code.ScenariosPath, err)
		}
		if svc == nil {
			log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			svc = grading.New(grading.NewPool(sandbox.DefaultLimits(), log, 1, 0), log)
		}
		refs := []struct{ file, source string }{{p.Code.ReferencePath, p.Code.Reference}}
		if _, why := pyenv.Available(); why == "" && p.Code.PythonReference != "" {
			// The Python reference answers the same scenarios: one it fails
			// is as wrong for Python answers. Where Python cannot run here,
			// lint says nothing of it.
			refs = append(refs, struct{ file, source string }{p.Code.PythonReferencePath, p.Code.PythonReference})
		}
		var faultRefs func(faultsim.Scenario) []faultsim.FaultRef
		if fs, ok := gradingKits()[i].(faultsim.FaultScript); ok {
			faultRefs = fs.Faults
		}
		for ri, ref := range refs {
			rep, err := svc.GradeKit(ctx, nil, gradewire.Job{Kit: p.Code.Kit, ScenariosFile: p.Code.ScenariosPath, Scenarios: []byte(p.Code.Scenarios),
				File: path.Base(ref.file), Source: ref.source, Seeds: lintReferenceSeeds}, nil, nil)
			if err != nil {
				return nil, fmt.Errorf("lint: grade the reference %s of %s: %w", path.Base(ref.file), p.Slug, err)
			}
			if rep.Status == gradewire.StatusError {
				out = append(out, problems.Diagnostic{File: ref.file, Message: "the reference cannot be graded: " + rep.Message})
				continue
			}
			failed := rep.Failed()
			if ri == 0 {
				out = append(out, faultWarnings(p.Code.ScenariosPath, path.Base(ref.file), scenarios, faultRefs, rep)...)
			}
			for _, sc := range scenarios {
				name := sc.Plan().Name
				ids := failed[name]
				if len(ids) == 0 {
					continue
				}
				line := scenarioLine(sc)
				out = append(out, problems.Diagnostic{File: p.Code.ScenariosPath, Line: line, Message: fmt.Sprintf(
					"scenario %q: the reference %s fails it (%s): no correct solution could pass it as written",
					name, path.Base(ref.file), strings.Join(ids, ", "))})
			}
		}
	}
	return out, nil
}

func scenarioLine(sc faultsim.Scenario) int {
	if l, ok := sc.(interface{ Line() int }); ok {
		return l.Line()
	}
	return 0
}

// faultWarnings warns, at its line, of each scenario the reference passes
// although some fault it scripts fired in none of its runs: the scenario
// does not test what its script says (a fault on a request the code never
// sends, a call it never makes). A correct solution may have no reason to
// meet a fault (one there to catch a wrong retry), so it is a warning, not
// an error; and none for a fault whose author said why a correct solution
// may never meet it (FaultRef.Unmet, from refs, the kit's list of the
// scenario's faults; nil for none).
func faultWarnings(file, reference string, scenarios []faultsim.Scenario, refs func(faultsim.Scenario) []faultsim.FaultRef, rep *gradewire.Report) []problems.Diagnostic {
	var out []problems.Diagnostic
	for _, sc := range scenarios {
		name := sc.Plan().Name
		i := slices.IndexFunc(rep.Scenarios, func(s gradewire.ScenarioReport) bool { return s.Name == name })
		if i < 0 || rep.Scenarios[i].Status != gradewire.StatusPass {
			continue
		}
		unmet := map[string]int{} // faults the author says may go unmet, by text
		if refs != nil {
			for _, ref := range refs(sc) {
				if ref.Unmet != "" {
					unmet[ref.Text]++
				}
			}
		}
		var unfired []string
		for _, text := range rep.Scenarios[i].FaultsUnfired {
			if unmet[text] > 0 {
				unmet[text]--
				continue
			}
			unfired = append(unfired, text)
		}
		if len(unfired) == 0 {
			continue
		}
		what := "a fault it scripts never fires"
		if len(unfired) > 1 {
			what = fmt.Sprintf("%d faults it scripts never fire", len(unfired))
		}
		out = append(out, problems.Diagnostic{File: file, Line: scenarioLine(sc), Warning: true, Message: fmt.Sprintf(
			"scenario %q: %s against the reference %s, in any of its runs (%s): a pass of it does not show the code copes with that fault",
			name, what, reference, strings.Join(unfired, "; "))})
	}
	return out
}
