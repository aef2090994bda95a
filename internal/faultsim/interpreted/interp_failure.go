package interpreted

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/faultsim"
	"github.com/faultline-dev/faultline/internal/gointerp"
	"github.com/faultline-dev/faultline/internal/gradewire"
)

// yaegiPanicPosition is the "line:col: " yaegi puts before a panic in
// interpreted code.
var yaegiPanicPosition = regexp.MustCompile(`^(\d+):(\d+): `)

// blameInterpreter turns a report some of whose calls panicked inside the
// interpreter (gointerp.IsInterpreterPanic) into one that gives no
// verdict: status error, a message saying the interpreter failed and that
// this is not a defect of the code, a diagnostic at the line yaegi named,
// and no defect listed as unfixed. What the scenarios found stays in the report, for whoever
// reads on; the native referee, where there is one, gives the verdict.
func blameInterpreter(rep *faultsim.Report) {
	for _, sc := range rep.Scenarios {
		for _, c := range sc.Calls {
			if !gointerp.IsInterpreterPanic(c.Panic) {
				continue
			}
			what := c.Panic
			if i := strings.Index(what, " {"); i > 0 {
				what = what[:i] // the value yaegi dumps after the message
			}
			d := gradewire.Diagnostic{Message: "the interpreter failed on this code: " + what}
			if m := yaegiPanicPosition.FindStringSubmatch(c.Panic); m != nil {
				d.Line, _ = strconv.Atoi(m[1])
				d.Column, _ = strconv.Atoi(m[2])
				d.Message = "the interpreter failed on this code: " + strings.TrimPrefix(what, m[0])
			}
			rep.Status = faultsim.StatusError
			rep.Diagnostics = append([]gradewire.Diagnostic{d}, rep.Diagnostics...)
			where := "the code"
			if d.Line > 0 {
				where = fmt.Sprintf("line %d", d.Line)
			}
			rep.Message = fmt.Sprintf("The code could not be graded: the interpreter failed to run it (%s's call in scenario %s: %s). "+
				"This is a limit of the grader's Go interpreter, not a defect of your code. "+
				"Writing %s more plainly (a named field instead of an embedded interface, a plain loop, explicit types) usually avoids it.",
				c.Worker, sc.Name, d.Message, where)
			for k := range rep.Defects {
				rep.Defects[k].Fixed = true
			}
			return
		}
	}
}
