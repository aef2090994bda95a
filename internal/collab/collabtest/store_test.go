package collabtest

import (
	"testing"

	"github.com/faultline-dev/faultline/internal/collab"
)

func TestMemoryStore(t *testing.T) {
	TestStore(t, func(*testing.T) collab.Store { return collab.NewMemoryStore() })
}
