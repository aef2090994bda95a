package rubricmatch

import (
	"strings"
	"testing"
)

// BenchmarkMatchLongAnswer marks six key points of ten phrases each
// against an answer at the box's 64 KiB limit (of which Match reads
// MaxAnswerBytes), made of the phrases' own words so that every word
// starts a search: the worst a page render sees.
func BenchmarkMatchLongAnswer(b *testing.B) {
	var points []KeyPoint
	for i := range 6 {
		var kp KeyPoint
		for j := range 10 {
			kp.Shows = append(kp.Shows, strings.Repeat("key retry store ", 1+(i+j)%3)+"lease")
		}
		kp.Contradicts = []string{"new key every retry"}
		points = append(points, kp)
	}
	answer := strings.Repeat("the key and the retry store it, ", 64<<10/32)
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		Match(answer, points)
	}
}
