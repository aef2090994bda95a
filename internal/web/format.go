package web

import (
	"fmt"
	"strconv"
	"time"
)

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func minutes(n int) string {
	if n <= 0 {
		return ""
	}
	return "about " + plural(n, "minute")
}

// clock formats a time limit the way a timer shows it: 2:00, 1:30.
func clock(d time.Duration) string {
	secs := int(d.Round(time.Second) / time.Second)
	return strconv.Itoa(secs/60) + ":" + pad2(secs%60)
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func ariaCurrent(active bool) string {
	if active {
		return "true"
	}
	return "false"
}

func errUnknownStep(screen, kind, slug string) error {
	return fmt.Errorf("web: screen %s names unknown %s %q", screen, kind, slug)
}

// ruleCitation is the words after a trace event that a rule of the
// problem's page decided: " (rule P3)", or nothing.
func ruleCitation(rule string) string {
	if rule == "" {
		return ""
	}
	return " (rule " + rule + ")"
}
