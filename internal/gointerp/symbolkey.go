package gointerp

import "strings"

// SymbolKey is the key of a package in interp.Exports: "importpath/name".
// It builds without the interpreter (-tags nointerp), so a kit's package,
// which names its harness's symbols by it, does too: the go-build route of
// the benchmarks links no interpreter.
func SymbolKey(importPath string) string {
	return importPath + "/" + importPath[strings.LastIndex(importPath, "/")+1:]
}
