package main

import (
	"testing"

	"github.com/faultline-dev/faultline/internal/grader"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// The parent starts children with gradewire.ChildCommand and the binary
// dispatches that word to the child (main.go); the grader's child names
// its mode in its own messages: one word for both.
func TestChildCommandIsOneWord(t *testing.T) {
	if grader.ChildCommand != gradewire.ChildCommand {
		t.Errorf("grader.ChildCommand %q, gradewire.ChildCommand %q: the parent would start a mode the binary does not have", grader.ChildCommand, gradewire.ChildCommand)
	}
}
