package pyrun

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// TestToPythonIsTheJSONEncoding: the hand-written encoder writes what
// encoding/json writes for each shape of message the engine sends.
func TestToPythonIsTheJSONEncoding(t *testing.T) {
	seed := int64(-42)
	for _, tc := range []struct {
		name string
		m    toPython
	}{
		{"start", toPython{W: 3, Start: true, Now: 0, Seed: &seed, Args: []any{"r1 <&>"}}},
		{"answer", toPython{W: 3, Now: 1500000000, ID: 7, OK: encode(map[string]any{"status": "pending", "lease_until": nil})}},
		{"answer null", toPython{W: 3, Now: 1, ID: 2, OK: encode(nil)}},
		{"raised", toPython{W: 1, Now: 9, ID: 1, Raise: &Raised{Type: "ProviderTimeout", Message: "no reply \"x\"\n", Fields: map[string]any{"after": 2.5}}}},
		{"timer", toPython{W: 12, Now: 30000000000}},
		{"cancel", toPython{W: 12, Now: 5, Cancel: true}},
		{"sync answer", toPython{W: 2, Now: 5, Sync: &syncAnswer{OK: encode(nil)}}},
		{"sync raised", toPython{W: 2, Now: 5, Sync: &syncAnswer{Raise: &Raised{Type: "RuntimeError", Message: "boom", Bug: true}}}},
		{"drop", toPython{W: 4, Drop: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			got := appendToPython(nil, &tc.m)
			if !bytes.Equal(got, append(want, '\n')) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestFromPythonDecodes: the usual batch in its short form reads as its
// JSON form does; any other message is JSON; a short form that is not
// whole is an error, not a call.
func TestFromPythonDecodes(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       fromPython
		bad        bool
	}{
		{"one call", "c12\tget_record\t{\"request_id\":\"r\\tx\"}\n",
			fromPython{Calls: []harnessCall{{ID: 12, Fn: "get_record", Args: json.RawMessage(`{"request_id":"r\tx"}`)}}}, false},
		{"JSON", `{"calls":[{"id":1,"fn":"claim","args":{}}],"timer":5,"out":"hi"}` + "\n",
			fromPython{Calls: []harnessCall{{ID: 1, Fn: "claim", Args: json.RawMessage(`{}`)}}, Timer: ptr(int64(5)), Out: "hi"}, false},
		{"later", `{"later":[{"out":"a","drew":true,"fn":"log","args":{"line":"x"}}],"done":true,"result":"\"done\""}` + "\n",
			fromPython{Later: []laterCall{{Out: "a", Drew: true, Fn: "log", Args: json.RawMessage(`{"line":"x"}`)}}, Done: true, Result: json.RawMessage(`"\"done\""`)}, false},
		{"returned", "r\"done\"\n", fromPython{Done: true, Result: json.RawMessage(`"done"`)}, false},
		{"returned None", "rnull\n", fromPython{Done: true, Result: json.RawMessage(`null`)}, false},
		{"no fn", "c12\n", fromPython{}, true},
		{"no id", "cx\tclaim\t{}\n", fromPython{}, true},
		{"not JSON", "hello\n", fromPython{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decodeFromPython([]byte(tc.line))
			if (err != nil) != tc.bad {
				t.Fatalf("error %v, want an error: %v", err, tc.bad)
			}
			if !tc.bad && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
