package web

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/review"
	"github.com/faultline-dev/faultline/internal/storage"
)

// calibrationRow is one answer on the calibration chart and in its table.
type calibrationRow struct {
	At                 time.Time
	Title              string
	Predicted, Covered int
	Of                 int
}

func (r calibrationRow) gapText() string {
	switch d := r.Predicted - r.Covered; {
	case d > 0:
		return "over by " + plural(d, "point")
	case d < 0:
		return "under by " + plural(-d, "point")
	}
	return "exact"
}

// calibrationView is My practice's "Predictions and ticks": a small chart
// drawn on the server and the table it is drawn from.
type calibrationView struct {
	Rows    []calibrationRow
	Summary review.Calibration
}

// The chart's frame, in SVG units; the chart scales to its column.
const (
	calW, calH                       = 480, 200
	calPadX, calPadTop, calPadBottom = 40, 12, 28
)

// calX is the x of answer i of n; one answer sits in the middle.
func calX(i, n int) float64 {
	if n <= 1 {
		return calW / 2
	}
	return calPadX + float64(i)*float64(calW-2*calPadX)/float64(n-1)
}

// calY is the y of a share of the key points (0..1).
func calY(share float64) float64 {
	return calPadTop + (1-share)*float64(calH-calPadTop-calPadBottom)
}

func share(n, of int) float64 {
	if of < 1 {
		return 0
	}
	return float64(n) / float64(of)
}

// points is a polyline's points attribute for one series.
func (v calibrationView) points(predicted bool) string {
	var b strings.Builder
	for i, r := range v.Rows {
		n := r.Covered
		if predicted {
			n = r.Predicted
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f,%.1f", calX(i, len(v.Rows)), calY(share(n, r.Of)))
	}
	return b.String()
}

func fmtCoord(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// summaryText says the figures in a sentence, for the chart's desc and the
// page.
func (v calibrationView) summaryText() string {
	c := v.Summary
	text := fmt.Sprintf("%s: predicted more key points than ticked %s, fewer %s, exactly %s.",
		plural(c.Answers, "answer"), plural(c.Over, "time"), plural(c.Under, "time"), plural(c.Exact, "time"))
	switch {
	case c.MeanGap > 0:
		text += fmt.Sprintf(" On average you predicted %d%% of the key points more than you ticked; over-confident answers come back sooner in the review queue.", percent(c.MeanGap))
	case c.MeanGap < 0:
		text += fmt.Sprintf(" On average you predicted %d%% of the key points fewer than you ticked.", percent(-c.MeanGap))
	}
	return text
}

func percent(f float64) int { return int(f*100 + 0.5) }

// calibration reads the user's predictions beside their ticks.
func (s *Server) calibration(ctx context.Context, userID string) (calibrationView, error) {
	points, err := s.store.Calibration(ctx, userID)
	if err != nil {
		return calibrationView{}, err
	}
	v := calibrationView{Summary: review.Calibrate(points)}
	items := make([]storage.ReviewItem, len(points))
	for i, p := range points {
		items[i] = storage.ReviewItem{Kind: p.Kind, Slug: p.Slug, Scope: p.Scope}
	}
	lines := s.reviewLines(ctx, items)
	for i, p := range points {
		v.Rows = append(v.Rows, calibrationRow{At: p.At, Title: lines[i].Title, Predicted: p.Predicted, Covered: p.Covered, Of: p.Of})
	}
	return v, nil
}
