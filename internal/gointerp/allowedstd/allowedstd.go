// Package allowedstd holds yaegi's symbol tables of the standard packages
// a submission may import (gointerp.AllowedStdlib), and of no other.
//
// The go1_22_*.go files are yaegi v0.16.1's stdlib files for those
// packages ('yaegi extract', Apache License 2.0, see LICENSE), copied with
// only their package clause changed. Importing yaegi's stdlib package
// instead links every standard package it wraps into the server, and its
// init builds the tables of all of them: both the server and every
// grading child paid for net/rpc, encoding/gob, image/... at start-up.
// TestTablesAreYaegis (in gointerp) checks these copies against yaegi's
// tables, so updating yaegi means copying them again:
//
//	for p in context errors fmt math_rand sort strconv strings sync sync_atomic time; do
//		sed 's/^package stdlib$/package allowedstd/' $(go env GOMODCACHE)/github.com/traefik/yaegi@VERSION/stdlib/go1_22_$p.go > go1_22_$p.go
//	done
package allowedstd

import "reflect"

// Symbols are the tables, keyed as yaegi's stdlib.Symbols ("fmt/fmt").
var Symbols = map[string]map[string]reflect.Value{}
