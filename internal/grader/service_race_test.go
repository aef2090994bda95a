//go:build race

package grader

// serviceTestRace: a child of a -race test binary needs far more memory and
// time than the sandbox allows, so under -race the service tests use a
// server binary built without the race detector as the grading child.
const serviceTestRace = true
