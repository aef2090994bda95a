package problems

import "slices"

// Public is the catalogue as the public pages serve it: without the
// problems, question sets and screens marked interview_only, whose model
// answers, rubrics and hints only a live screen's interviewer sees (a
// candidate could otherwise read them in another tab). Live screens are
// made from the whole catalogue. The items are shared, not copied.
func (c *Catalog) Public() *Catalog {
	return &Catalog{
		Problems: slices.DeleteFunc(slices.Clone(c.Problems), func(p *Problem) bool { return p.InterviewOnly }),
		Sets:     slices.DeleteFunc(slices.Clone(c.Sets), func(s *QuestionSet) bool { return s.InterviewOnly }),
		Screens:  slices.DeleteFunc(slices.Clone(c.Screens), func(s *Screen) bool { return s.InterviewOnly }),
	}
}

// checkInterviewOnly reports a public screen with an interview-only step:
// the screen's practice pages would serve what the step keeps for the
// interviewer.
func (l *loader) checkInterviewOnly() {
	only := map[string]bool{}
	for _, p := range l.problems {
		if p.InterviewOnly {
			only["problem "+p.Slug] = true
		}
	}
	for _, s := range l.sets {
		if s.InterviewOnly {
			only["questions "+s.Slug] = true
		}
	}
	for _, ls := range l.screens {
		if ls.screen.InterviewOnly {
			continue
		}
		for i, item := range ls.screen.Items {
			key, line := "problem "+item.Problem, ls.file.itemKeyLine("items", i, "problem")
			if item.Questions != "" {
				key, line = "questions "+item.Questions, ls.file.itemKeyLine("items", i, "questions")
			}
			if only[key] {
				l.ds.add(ls.file.path, line, "screen item %d uses the interview-only %s, which a public screen would show: add interview_only: true to this screen, or take the step out", i+1, key)
			}
		}
	}
}
