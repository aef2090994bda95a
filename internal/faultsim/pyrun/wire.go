package pyrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// The wire, written by hand for the few shapes it carries: a JSON line
// each way, whose encoding by reflection (and its decoding) was a good
// part of what a Python grade costs this process over a Go grade
// (BenchmarkGradePythonVersusGo).

// appendToPython appends m as the JSON line runtime.py reads: the fields
// of toPython's tags, those empty left out.
func appendToPython(b []byte, m *toPython) []byte {
	b = append(b, `{"w":`...)
	b = strconv.AppendInt(b, m.W, 10)
	if m.Start {
		b = append(b, `,"start":true`...)
	}
	if m.Drop {
		b = append(b, `,"drop":true`...)
	}
	b = append(b, `,"now":`...)
	b = strconv.AppendInt(b, m.Now, 10)
	if m.Seed != nil {
		b = append(b, `,"seed":`...)
		b = strconv.AppendInt(b, *m.Seed, 10)
	}
	if len(m.Args) > 0 {
		b = append(b, `,"args":`...)
		b = append(b, encode(m.Args)...)
	}
	if m.ID != 0 {
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, int64(m.ID), 10)
	}
	b = appendAnswer(b, m.OK, m.Raise)
	if m.Cancel {
		b = append(b, `,"cancel":true`...)
	}
	if m.Sync != nil {
		b = append(b, `,"sync":{`...)
		n := len(b)
		b = appendAnswer(b, m.Sync.OK, m.Sync.Raise)
		if len(b) > n {
			b = append(b[:n], b[n+1:]...) // its leading comma
		}
		b = append(b, '}')
	}
	return append(b, '}', '\n')
}

// appendAnswer appends the fields ok and raise, each after a comma. ok is
// JSON as encode made it.
func appendAnswer(b []byte, ok json.RawMessage, raised *Raised) []byte {
	if len(ok) > 0 {
		b = append(b, `,"ok":`...)
		b = append(b, ok...)
	}
	if raised != nil {
		b = append(b, `,"raise":`...)
		b = append(b, encode(raised)...)
	}
	return b
}

// decodeFromPython reads one line from a lane: the usual batch (one
// harness call and nothing else) as runtime.py writes it without JSON,
// "c<id>\t<fn>\t<args>\n", the usual end (a value returned, and nothing
// else) as "r<value>\n", anything else a JSON object.
func decodeFromPython(line []byte) (fromPython, error) {
	var m fromPython
	if len(line) > 0 && line[0] == 'r' {
		m.Done, m.Result = true, bytes.Clone(bytes.TrimSuffix(line[1:], []byte{'\n'}))
		return m, nil
	}
	if len(line) == 0 || line[0] != 'c' {
		err := json.Unmarshal(line, &m)
		return m, err
	}
	id, rest, ok1 := bytes.Cut(line[1:], []byte{'\t'})
	fn, args, ok2 := bytes.Cut(rest, []byte{'\t'})
	n, err := strconv.Atoi(string(id))
	args = bytes.TrimSuffix(args, []byte{'\n'})
	if !ok1 || !ok2 || err != nil {
		return m, errors.New("pyrun: a malformed call from the Python process: " + strconv.Quote(string(line)))
	}
	// The line is the reader's buffer: the call keeps copies.
	m.Calls = []harnessCall{{ID: n, Fn: string(fn), Args: bytes.Clone(args)}}
	return m, nil
}
