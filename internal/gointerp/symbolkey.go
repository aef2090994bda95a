package gointerp

import "strings"

// SymbolKey is the key of a package in interp.Exports: "importpath/name".
// Kits use the engine's faultsim.SymbolKey, the same key, so as to link no
// interpreter.
func SymbolKey(importPath string) string {
	return importPath + "/" + importPath[strings.LastIndex(importPath, "/")+1:]
}
