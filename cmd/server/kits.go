package main

import (
	"github.com/faultline-dev/faultline/internal/kits/createclient"
	"github.com/faultline-dev/faultline/internal/problems"
)

// contentKits are the kits a problem's code.kit may name, with each kit's
// scenario schema: the content loader (lint, serve, -watch) checks a
// scenarios file with them and names its errors by file and line. The
// checks are given here because the loader must not link the interpreter
// the kits' packages bring.
func contentKits() []problems.Kit {
	return []problems.Kit{
		{Name: createclient.Name, Scenarios: true, CheckScenarios: func(file string, data []byte) []problems.Diagnostic {
			_, err := createclient.ParseScenarios(file, data)
			return problems.ErrorDiagnostics(file, err)
		}},
		{Name: "refund"}, // its scenarios are compiled into internal/grader
	}
}

// contentOptions is how the server loads content.
func contentOptions() problems.Options { return problems.Options{Kits: contentKits()} }
