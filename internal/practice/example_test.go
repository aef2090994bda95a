package practice_test

import (
	"context"
	"fmt"
	"time"

	"github.com/faultline-dev/faultline/internal/practice"
)

// A room's clock as an interviewer drives it: 30 minutes, started, paused
// for a question, resumed, then extended by five minutes.
func ExampleClocks() {
	ctx := context.Background()
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	clocks := practice.NewClocks(practice.NewMemoryClocks(), func() time.Time { return now })
	show := func(v practice.ClockView, err error) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %v used, %v left\n", v.State.Phase, v.State.Used, v.State.Remaining)
	}
	show(clocks.Setup(ctx, "room-7", 30*time.Minute))
	show(clocks.Start(ctx, "room-7"))
	now = now.Add(12 * time.Minute)
	show(clocks.Pause(ctx, "room-7"))
	now = now.Add(3 * time.Minute)
	show(clocks.Resume(ctx, "room-7"))
	now = now.Add(18 * time.Minute)
	show(clocks.Read(ctx, "room-7"))
	show(clocks.Extend(ctx, "room-7", 5*time.Minute))
	// Output:
	// idle: 0s used, 30m0s left
	// running: 0s used, 30m0s left
	// paused: 12m0s used, 18m0s left
	// running: 12m0s used, 18m0s left
	// up: 30m0s used, 0s left
	// running: 30m0s used, 5m0s left
}
