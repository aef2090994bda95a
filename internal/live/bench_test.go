package live

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkFanOut appends b.N events to one topic followed by subs
// followers, each writing to a response that notes when each event
// reached it. It reports events appended per second, events delivered
// per second (appended × followers) and the delay from Append to each
// follower's write, p50 and p99. "flood" appends as fast as it can, so
// its delays include the backlog followers build at full speed (a
// throughput figure); "every=2ms" appends 500 events a second, a steady
// load, so its delays are the fan-out latency itself.
// Compare the sub-benchmarks of one run:
//
//	go test ./internal/live -run '^$' -bench FanOut -benchtime 1000x
func BenchmarkFanOut(b *testing.B) {
	for _, every := range []time.Duration{0, 2 * time.Millisecond} {
		name := "flood"
		if every > 0 {
			name = "every=" + every.String()
		}
		for _, subs := range []int{50, 200} {
			b.Run(name+"/subs="+strconv.Itoa(subs), func(b *testing.B) { benchFanOut(b, subs, every) })
		}
	}
}

// timingWriter is a ResponseWriter that keeps, per event id, how long
// after its append it was written.
type timingWriter struct {
	header   http.Header
	appended []time.Time // by seq-1, written before the event is published
	delays   []time.Duration
	last     int64
}

func (w *timingWriter) Header() http.Header { return w.header }
func (w *timingWriter) WriteHeader(int)     {}
func (w *timingWriter) Flush()              {}
func (w *timingWriter) Write(p []byte) (int, error) {
	if rest, ok := bytes.CutPrefix(p, []byte("id: ")); ok {
		if i := bytes.IndexByte(rest, '\n'); i > 0 {
			seq, _ := strconv.ParseInt(string(rest[:i]), 10, 64)
			w.delays = append(w.delays, time.Since(w.appended[seq-1]))
			w.last = seq
		}
	}
	return len(p), nil
}

func benchFanOut(b *testing.B, subs int, every time.Duration) {
	broker := NewInProcess()
	l := NewMemoryLog("t", broker)
	appended := make([]time.Time, b.N)
	writers := make([]*timingWriter, subs)
	var wg sync.WaitGroup
	for i := range writers {
		w := &timingWriter{header: http.Header{}, appended: appended}
		writers[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			Follow(context.Background(), NewWriter(w, WriterOptions{KeepAlive: time.Hour}), broker, "t", l.EventsAfter, 0)
		}()
	}
	for broker.Subscribers("t") < subs {
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	start := time.Now()
	tick := time.NewTicker(max(every, time.Microsecond))
	defer tick.Stop()
	for i := range b.N {
		if every > 0 {
			<-tick.C
		}
		// The time is set before Append publishes: a follower reads it
		// only after the log (whose lock orders the two) holds the event.
		appended[i] = time.Now()
		l.Append(context.Background(), "n", []byte(`{"keystroke":"x"}`), i == b.N-1)
	}
	appendTime := time.Since(start)
	wg.Wait()
	total := time.Since(start)
	b.StopTimer()

	var all []time.Duration
	for _, w := range writers {
		if w.last != int64(b.N) || len(w.delays) != b.N {
			b.Fatalf("a follower got %d events, the last %d; want %d", len(w.delays), w.last, b.N)
		}
		all = append(all, w.delays...)
	}
	slices.Sort(all)
	pct := func(p float64) float64 { return float64(all[int(p*float64(len(all)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(float64(b.N)/appendTime.Seconds(), "appended/s")
	b.ReportMetric(float64(b.N*subs)/total.Seconds(), "delivered/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
