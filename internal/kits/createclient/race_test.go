//go:build race

package createclient_test

// raceEnabled: interpreted runs are several times slower under the race
// detector, so the interpreted samples shrink (never to nothing).
const raceEnabled = true
