//go:build !race

package refund_test

const raceEnabled = false
