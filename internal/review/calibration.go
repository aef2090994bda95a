package review

import (
	"math"

	"github.com/faultline-dev/faultline/internal/storage"
)

// Calibration sums up how a candidate's predictions compare with their
// ticks: a prediction above the ticks was over-confident, below them
// under-confident.
type Calibration struct {
	Answers int // predictions with ticks
	Over    int // predicted more key points than they ticked
	Under   int // predicted fewer
	Exact   int
	// MeanGap is the mean of (predicted - ticked) / key points, in
	// -1..1: above 0, the candidate expects more of their answers than
	// they find in them.
	MeanGap float64
}

// Calibrate sums up points.
func Calibrate(points []storage.CalibrationPoint) Calibration {
	var c Calibration
	var sum float64
	for _, p := range points {
		if p.Of < 1 {
			continue
		}
		c.Answers++
		switch {
		case p.Predicted > p.Covered:
			c.Over++
		case p.Predicted < p.Covered:
			c.Under++
		default:
			c.Exact++
		}
		sum += float64(p.Predicted-p.Covered) / float64(p.Of)
	}
	if c.Answers > 0 {
		c.MeanGap = math.Round(sum/float64(c.Answers)*1000) / 1000
	}
	return c
}
