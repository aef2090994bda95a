package review

import (
	"testing"

	"github.com/faultline-dev/faultline/internal/storage"
)

func TestCalibrate(t *testing.T) {
	pt := func(predicted, covered, of int) storage.CalibrationPoint {
		return storage.CalibrationPoint{Predicted: predicted, Covered: covered, Of: of}
	}
	tests := []struct {
		name   string
		points []storage.CalibrationPoint
		want   Calibration
	}{
		{"none", nil, Calibration{}},
		{"exact", []storage.CalibrationPoint{pt(2, 2, 4), pt(0, 0, 3)}, Calibration{Answers: 2, Exact: 2}},
		// (4-2)/4 = 0.5 and (1-3)/4 = -0.5 and (3-0)/3 = 1: mean 1/3.
		{"mixed", []storage.CalibrationPoint{pt(4, 2, 4), pt(1, 3, 4), pt(3, 0, 3)},
			Calibration{Answers: 3, Over: 2, Under: 1, MeanGap: 0.333}},
		{"under only", []storage.CalibrationPoint{pt(0, 5, 5)}, Calibration{Answers: 1, Under: 1, MeanGap: -1}},
		{"no key points is skipped", []storage.CalibrationPoint{pt(0, 0, 0), pt(2, 1, 2)},
			Calibration{Answers: 1, Over: 1, MeanGap: 0.5}},
	}
	for _, tt := range tests {
		if got := Calibrate(tt.points); got != tt.want {
			t.Errorf("%s: Calibrate = %+v; want %+v", tt.name, got, tt.want)
		}
	}
}
