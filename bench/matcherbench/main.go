// Command matcherbench prints the rubric matcher's precision and recall
// on the labelled answers (internal/rubricmatch/testdata/labelled.yaml)
// against a content folder: bench/matcher.sh runs it.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/faultline-dev/faultline/internal/rubricmatch/measure"
)

func main() {
	content := flag.String("content", "content", "the content folder")
	labelled := flag.String("labelled", "internal/rubricmatch/testdata/labelled.yaml", "the labelled answers")
	verbose := flag.Bool("v", false, "list every key point where the matcher and the label disagree")
	reportOnly := flag.Bool("report-only", false, "print the figures and exit 0 whatever they are")
	flag.Parse()
	qs, err := measure.Load(*labelled)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r, err := measure.Run(os.DirFS(*content), qs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *verbose {
		for _, m := range r.Misses {
			fmt.Printf("  %s: key point %d labelled %s, marked %s: %s\n", m.Where, m.Point, m.Label, m.Got, m.KeyPoint)
		}
	}
	fmt.Printf("%d questions, %d answers, %d key points; contradictions found %d of %d, %d marked wrongly\n",
		r.Questions, r.Answers, r.Points, r.ContradictedFound, r.ContradictedLabelled, r.ContradictedWrong)
	fmt.Printf("precision %.2f recall %.2f\n", r.Precision(), r.Recall())
	if !*reportOnly && (r.Precision() < measure.TargetPrecision || r.Recall() < measure.TargetRecall) {
		fmt.Printf("below the targets: precision %.2f, recall %.2f\n", measure.TargetPrecision, measure.TargetRecall)
		os.Exit(1)
	}
}
