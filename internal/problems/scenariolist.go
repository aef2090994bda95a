package problems

import (
	"slices"

	"gopkg.in/yaml.v3"
)

// What every kit's scenarios file shares, whatever its schema: a list
// "scenarios" whose entries have a "name", and an optional "check" list
// naming the few scenarios the fast pre-grade (Check) runs. The loader
// reads these two so the server knows a problem's scenarios without the
// kit (which lives in the grading child): the total a grade's progress
// counts to, and what Check runs.

// scenarioList is the shared part of a scenarios file.
type scenarioList struct {
	Check     []string `yaml:"check"`
	Scenarios []struct {
		Name string `yaml:"name"`
	} `yaml:"scenarios"`
}

// readScenarioList fills code's scenario names and check list from its
// scenarios file, and reports a check entry that names no scenario at its
// line. A file that does not parse is the kit's check to report: nothing
// is added then.
func (l *loader) readScenarioList(code *Code) {
	list, root, ok := parseScenarioList(code.Scenarios)
	if !ok {
		return
	}
	code.ScenarioNames = code.ScenarioNames[:0]
	for _, sc := range list.Scenarios {
		code.ScenarioNames = append(code.ScenarioNames, sc.Name)
	}
	lines := checkLines(root)
	for i, name := range list.Check {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		switch {
		case !slices.Contains(code.ScenarioNames, name):
			l.ds.add(code.ScenariosPath, line, "check names %q, which is not a scenario of this file", name)
		case slices.Contains(code.CheckScenarios, name):
			l.ds.add(code.ScenariosPath, line, "check names %q twice", name)
		default:
			code.CheckScenarios = append(code.CheckScenarios, name)
		}
	}
}

// checkLines is the line of each entry of the top-level check list.
func checkLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "check" {
			continue
		}
		var lines []int
		for _, n := range m.Content[i+1].Content {
			lines = append(lines, n.Line)
		}
		return lines
	}
	return nil
}

// parseScenarioList parses a scenarios file's shared part, once: the list
// is decoded from the parsed document, whose nodes also give the check
// entries' lines. ok is false when the file does not parse.
func parseScenarioList(scenarios string) (list scenarioList, root *yaml.Node, ok bool) {
	root = &yaml.Node{}
	if err := yaml.Unmarshal([]byte(scenarios), root); err != nil {
		return list, nil, false
	}
	if len(root.Content) > 0 {
		if err := root.Decode(&list); err != nil {
			return list, nil, false
		}
	}
	return list, root, true
}

// ScenarioNames are the scenarios of a scenarios file in order, as the
// loader reads them into Code.ScenarioNames (LoadCode leaves them out);
// nil when the file does not parse.
func ScenarioNames(scenarios string) []string {
	list, _, ok := parseScenarioList(scenarios)
	if !ok {
		return nil
	}
	var names []string
	for _, sc := range list.Scenarios {
		names = append(names, sc.Name)
	}
	return names
}
