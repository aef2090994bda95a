//go:build !race

package gointerp

const raceEnabled = false
