package live_test

import (
	"testing"

	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/live/livetest"
)

func TestInProcessConforms(t *testing.T) {
	livetest.Broker(t, func(t *testing.T) live.Broker {
		b := live.NewInProcess()
		t.Cleanup(b.Close)
		return b
	})
}
