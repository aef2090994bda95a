//go:build race

package sandbox

// raceEnabled: the race runtime maps its own shadow memory, so a child of a
// -race test binary fails differently at RLIMIT_AS (or exits 66).
const raceEnabled = true
