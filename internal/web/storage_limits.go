package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/bytesize"
	"github.com/faultline-dev/faultline/internal/ratelimit"
	"github.com/faultline-dev/faultline/internal/storage"
)

// DefaultWriteRate is how many bytes one client address may send to be
// stored. A class of 30 behind one NAT, each autosaving 10 KB of code every
// 3 s (13 KB form-encoded), sends 130 KB/s, and a Grade from each every
// 30 s adds 140 KB/s (with the report allowance): about half the rate,
// while the burst lets the whole class press Grade at the same moment
// (30 x 143 KB). The bound it gives: 6 MiB + 15 s x 512 KiB/s = 13.5 MiB
// from one address in 15 s, however many cookies it throws away (before:
// 1.6 GiB in 15 s with 4 loops); the WAL adds at most its size limit.
var DefaultWriteRate = WriteRate(512)

// WriteRate is a write budget of kib KiB a second with a burst of
// writeBurstSeconds of it.
func WriteRate(kib int) ratelimit.Rate {
	return ratelimit.Rate{Burst: float64(kib<<10) * writeBurstSeconds, PerSecond: float64(kib << 10)}
}

// writeBurstSeconds is the burst in seconds of the rate: 6 MiB at the
// default, the whole class's Grade at once.
const writeBurstSeconds = 12

// writeOverhead is charged to every write besides its body: the rows,
// index entries and page headers even an empty form costs.
const writeOverhead = 1 << 10

// maxBody is the body cap of a route (limitBody applies it).
func maxBody(route string) int64 {
	if n, ok := routeBodyLimit(route); ok {
		return n
	}
	if n, ok := roomBodyLimit(route); ok {
		return n
	}
	return maxAnswerBytes + 4<<10
}

// writeCost is what a request may add to the database: its body as
// announced (at most the route's cap, past which nothing is read), the
// fixed overhead, and for Grade the largest report a run keeps, which the
// server writes later on its behalf. A body sent without a length is read
// first (limitBody caps it) and charged what it held.
func writeCost(c echo.Context) float64 {
	req := c.Request()
	n := req.ContentLength
	if n < 0 && req.Body != nil && req.Body != http.NoBody {
		data, err := io.ReadAll(req.Body)
		req.Body = &replayBody{r: bytes.NewReader(data), err: err}
		n = int64(len(data))
	}
	n = min(max(n, 0), maxBody(c.Path()))
	n += writeOverhead
	if c.Path() == "/problems/:slug/grade" {
		n += storage.MaxReportBytes
	}
	return float64(n)
}

// replayBody gives a body read ahead back to the handler as it came: its
// bytes, then the error that ended the reading (io.EOF when none did), so
// a body cut off or too large is still answered as such.
type replayBody struct {
	r   *bytes.Reader
	err error
}

func (b *replayBody) Read(p []byte) (int, error) {
	if n, _ := b.r.Read(p); n > 0 {
		return n, nil
	}
	if b.err != nil {
		return 0, b.err
	}
	return 0, io.EOF
}

func (b *replayBody) Close() error { return nil }

// budgetWrites charges every request that can write to its client
// address's byte budget, and refuses it with 429 when the budget is spent
// (before the handler, so nothing of it is stored). It also turns a
// storage quota refusal into a 413 that says what the limit is.
func (s *Server) budgetWrites(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if s.writes != nil {
			if ok, retry := s.writes.Take(clientOf(c.Request().Context()).key, writeCost(c)); !ok {
				secs := int(math.Ceil(retry.Seconds()))
				c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
				return answered(codeError(c, http.StatusTooManyRequests, writeBudgetMessage(s.writeRate, secs)))
			}
		}
		err := next(c)
		var qe *storage.QuotaError
		if errors.As(err, &qe) && !c.Response().Committed {
			return answered(codeError(c, http.StatusRequestEntityTooLarge, quotaMessage(qe)))
		}
		return err
	}
}

func writeBudgetMessage(rate ratelimit.Rate, retrySecs int) string {
	return fmt.Sprintf("More has been sent to be saved from your network address in the last moments than "+
		"the server takes from one address (%s at once, then %s a second). Nothing of this was stored; "+
		"what you saved before is kept and your text is still on this page. Try again in %d s.",
		bytesize.Format(int64(rate.Burst)), bytesize.Format(int64(rate.PerSecond)), max(retrySecs, 1))
}

func quotaMessage(qe *storage.QuotaError) string {
	return fmt.Sprintf("Everything kept under this browser's cookie (drafts, graded code and reports, answers) "+
		"would pass the %s each person may store; %s is stored now. Nothing saved before is lost and your text is "+
		"still on this page: copy it somewhere safe. A shorter text can still be saved.",
		bytesize.Format(qe.Limit), bytesize.Format(qe.Used))
}

// trimmedMessage says why a finished run shows no report.
func trimmedMessage(trimmed string) string {
	if trimmed == storage.TrimmedTooLarge {
		return fmt.Sprintf("This run's report was larger than a run may keep (%s compressed), so only its summary was stored. "+
			"Code that logs less gets a full report.", bytesize.Format(storage.MaxReportBytes))
	}
	return fmt.Sprintf("Only this run's summary is kept: the code and report are kept for the newest %d runs of a problem. "+
		"Grade the code again to see a full report.", storage.FullRunsKept)
}
