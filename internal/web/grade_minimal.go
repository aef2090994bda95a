package web

import (
	"strings"

	"github.com/faultline-dev/faultline/internal/gradewire"
)

// invariantTitle is the title of the scenario's invariant id, the id
// itself if the scenario does not list it.
func invariantTitle(s gradewire.ScenarioReport, id string) string {
	for _, inv := range s.Invariants {
		if inv.ID == id {
			return inv.Title
		}
	}
	return id
}

// joinWithout joins what a minimal run left out, each to follow
// "without": "a; b and c".
func joinWithout(removed []string) string {
	switch len(removed) {
	case 0:
		return "nothing"
	case 1:
		return removed[0]
	}
	return strings.Join(removed[:len(removed)-1], "; ") + " and " + removed[len(removed)-1]
}

// cutWords follows the smaller run's summary when the run was cut where
// it broke its invariant: cut events came after.
func cutWords(cut int) string {
	if cut <= 0 {
		return ""
	}
	return ", cut where it broke"
}

// cutLeftWords says how many events a cut run left out.
func cutLeftWords(cut int) string {
	if cut == 1 {
		return "the event that came after it is left out"
	}
	return "the " + plural(cut, "event") + " that came after it are left out"
}

// faultClassWords are the fault classes as a report says them.
var faultClassWords = map[string]string{
	gradewire.FaultLostReply:    "lost replies",
	gradewire.FaultLostRequest:  "requests lost on the way",
	gradewire.FaultConnection:   "connection errors",
	gradewire.Fault5xx:          "5xx answers",
	gradewire.Fault429:          "429 answers",
	gradewire.Fault4xx:          "other 4xx answers",
	gradewire.FaultSlow:         "slow requests",
	gradewire.FaultStoreWrite:   "failed database writes",
	gradewire.FaultStoreRead:    "failed reads and searches",
	gradewire.FaultHarnessPanic: "panicking calls",
	gradewire.FaultCrash:        "crashes",
}

// faultClassList says classes in words, joined.
func faultClassList(classes []string) string {
	words := make([]string, len(classes))
	for i, c := range classes {
		words[i] = c
		if w, ok := faultClassWords[c]; ok {
			words[i] = w
		}
	}
	return strings.Join(words, ", ")
}
