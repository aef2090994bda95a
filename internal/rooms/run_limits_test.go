package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/faultline-dev/faultline/internal/storage"
)

// TestRunIsHeldToTheAddressLimits: a Run takes the address's place before
// anything is written and gives it back once its end is recorded, is
// charged what it stores (the whole shared code and the report it may
// keep), and a refusal of either writes nothing and holds no place.
func TestRunIsHeldToTheAddressLimits(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	release := f.g.releaseChan()
	_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")

	held, released := 0, 0
	var charged []int64
	limits := RunLimits{ClientKey: "k",
		Hold: func() (func(), error) {
			held++
			return func() { released++ }, nil
		},
		Charge: func(n int64) error { charged = append(charged, n); return nil },
	}
	started, err := f.svc.Run(ctx, ia, limits)
	if err != nil {
		t.Fatal(err)
	}
	var rs RunStarted
	if err := json.Unmarshal(started.Payload, &rs); err != nil {
		t.Fatal(err)
	}
	if rs.Source == "" {
		t.Fatal("the run kept no code")
	}
	if want := int64(len(rs.Source)) + MaxReportBytes; len(charged) != 1 || charged[0] != want {
		t.Errorf("charged %v; want one charge of %d (the code and the largest report kept)", charged, want)
	}
	if held != 1 || released != 0 {
		t.Errorf("while the run goes: held %d, released %d; want 1, 0", held, released)
	}
	close(release)
	if err := f.svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if released != 1 {
		t.Errorf("after the run's end: released %d; want 1", released)
	}
}

func TestRunRefusedByTheAddressLimits(t *testing.T) {
	errSpent := errors.New("SPENT")
	errFull := errors.New("FULL")
	for _, tc := range []struct {
		name         string
		hold, charge error
		want         error
	}{
		{"address full", errFull, nil, errFull},
		{"budget spent", nil, errSpent, errSpent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			_, ia, _ := f.create(t, storage.RoomFromProblem, "async-refund")
			before, err := f.svc.InterviewerView(ctx, ia)
			if err != nil {
				t.Fatal(err)
			}
			places := 0
			limits := RunLimits{ClientKey: "k",
				Hold: func() (func(), error) {
					if tc.hold != nil {
						return nil, tc.hold
					}
					places++
					return func() { places-- }, nil
				},
				Charge: func(int64) error { return tc.charge },
			}
			if _, err := f.svc.Run(ctx, ia, limits); !errors.Is(err, tc.want) {
				t.Fatalf("Run: %v; want %v", err, tc.want)
			}
			if places != 0 {
				t.Errorf("%d places still held after the refusal", places)
			}
			after, err := f.svc.InterviewerView(ctx, ia)
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Runs) != len(before.Runs) {
				t.Errorf("runs %d after the refusal; want %d (nothing written)", len(after.Runs), len(before.Runs))
			}
		})
	}
}
