//go:build !race

package createclient_test

const raceEnabled = false
