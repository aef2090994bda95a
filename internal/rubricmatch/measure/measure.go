// Package measure scores the rubric matcher against answers labelled by
// hand: which key points a person judged each answer to cover. It is what
// bench/matcher.sh prints and what TestLabelledSet holds to its targets.
package measure

import (
	"fmt"
	"io/fs"
	"os"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/faultline-dev/faultline/internal/problems"
	"github.com/faultline-dev/faultline/internal/rubricmatch"
)

// Targets the matcher must meet on the labelled set (issue 29).
const (
	TargetPrecision = 0.85
	TargetRecall    = 0.75
)

// Question is one labelled question: its set, its id, and its answers.
type Question struct {
	Set      string   `yaml:"set"`
	Problem  string   `yaml:"problem"`
	Question string   `yaml:"question"`
	Answers  []Answer `yaml:"answers"`
}

// Answer is one answer with its hand labels (0-based key point indexes).
type Answer struct {
	Style        string `yaml:"style"`
	Text         string `yaml:"text"`
	Covered      []int  `yaml:"covered"`
	Contradicted []int  `yaml:"contradicted"`
}

// Miss is one key point where the matcher and the label disagree.
type Miss struct {
	Where    string // set/question, answer style
	Point    int
	Label    string // "covered", "not covered", "contradicted"
	Got      rubricmatch.Verdict
	KeyPoint string
}

// Result is the matcher's score: "seems covered" against "covered" by
// hand. Contradicted ones are scored apart.
type Result struct {
	Questions, Answers, Points int
	TP, FP, FN, TN             int
	// ContradictedLabelled counts the labelled contradictions, and
	// ContradictedFound those the matcher marked contradicted.
	ContradictedLabelled, ContradictedFound int
	// ContradictedWrong counts points marked contradicted that the label
	// says are not.
	ContradictedWrong int
	Misses            []Miss
}

// Precision is TP / (TP + FP); 1 when nothing was marked.
func (r Result) Precision() float64 {
	if r.TP+r.FP == 0 {
		return 1
	}
	return float64(r.TP) / float64(r.TP+r.FP)
}

// Recall is TP / (TP + FN); 1 when nothing is labelled covered.
func (r Result) Recall() float64 {
	if r.TP+r.FN == 0 {
		return 1
	}
	return float64(r.TP) / float64(r.TP+r.FN)
}

// Load reads the labelled answers.
func Load(path string) ([]Question, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	var qs []Question
	if err := yaml.Unmarshal(b, &qs); err != nil {
		return nil, fmt.Errorf("measure: %s: %w", path, err)
	}
	return qs, nil
}

// Run scores the matcher over the labelled questions against the content
// in contentFS.
func Run(contentFS fs.FS, labelled []Question) (Result, error) {
	cat, err := problems.Load(contentFS)
	if err != nil {
		return Result{}, fmt.Errorf("measure: content: %w", err)
	}
	var r Result
	seen := map[string]bool{}
	for _, lq := range labelled {
		points, where, err := keyPoints(cat, lq)
		if err != nil {
			return Result{}, err
		}
		if !seen[where] {
			seen[where] = true
			r.Questions++
		}
		for _, a := range lq.Answers {
			for _, i := range slices.Concat(a.Covered, a.Contradicted) {
				if i < 0 || i >= len(points) {
					return Result{}, fmt.Errorf("measure: %s, %q: key point %d out of 0..%d", where, a.Style, i, len(points)-1)
				}
			}
			r.Answers++
			marks := rubricmatch.Match(a.Text, problems.MatcherPoints(points))
			for i, m := range marks {
				r.Points++
				covered, contradicted := slices.Contains(a.Covered, i), slices.Contains(a.Contradicted, i)
				got := m.Verdict == rubricmatch.Covered
				switch {
				case got && covered:
					r.TP++
				case got:
					r.FP++
				case covered:
					r.FN++
				default:
					r.TN++
				}
				if contradicted {
					r.ContradictedLabelled++
					if m.Verdict == rubricmatch.Contradicted {
						r.ContradictedFound++
					}
				} else if m.Verdict == rubricmatch.Contradicted {
					r.ContradictedWrong++
				}
				label := "not covered"
				switch {
				case covered:
					label = "covered"
				case contradicted:
					label = "contradicted"
				}
				if got != covered || contradicted != (m.Verdict == rubricmatch.Contradicted) {
					r.Misses = append(r.Misses, Miss{Where: where + ", " + a.Style, Point: i, Label: label, Got: m.Verdict,
						KeyPoint: points[i].Text.HTML})
				}
			}
		}
	}
	return r, nil
}

func keyPoints(cat *problems.Catalog, lq Question) ([]problems.Item, string, error) {
	if lq.Problem != "" {
		p, ok := cat.Problem(lq.Problem)
		if !ok {
			return nil, "", fmt.Errorf("measure: no problem %q in the content", lq.Problem)
		}
		return p.StrongAnswer, lq.Problem, nil
	}
	qs, ok := cat.Set(lq.Set)
	if !ok {
		return nil, "", fmt.Errorf("measure: no set %q in the content", lq.Set)
	}
	for _, q := range qs.Questions {
		if q.ID == lq.Question {
			return q.KeyPoints, lq.Set + "/" + q.ID, nil
		}
	}
	return nil, "", fmt.Errorf("measure: set %s has no question %q", lq.Set, lq.Question)
}
