//go:build race

package gointerp

// raceEnabled: yaegi races inside itself under the race detector (see
// TestFormsMeanWhatGoMeans).
const raceEnabled = true
