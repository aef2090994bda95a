package web

import "github.com/faultline-dev/faultline/internal/gradewire"

// runChoicesOf is the recorded choices of s's shown run, nil when the
// report keeps none.
func runChoicesOf(s gradewire.ScenarioReport) *gradewire.RunChoices { return s.Choices }
