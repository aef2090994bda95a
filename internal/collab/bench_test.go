package collab

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// starterSized is a document the size of the largest problem's starter
// code (about 5,000 code units), with a few astral characters so the UTF-16
// walk is not all ASCII.
func starterSized() string {
	line := "\tif err := store.Refund(ctx, id); err != nil { return err } // 😀\n"
	return strings.Repeat(line, 5000/len(line)+1)
}

// BenchmarkApplyKeystroke is one typed character in the middle of a
// starter-sized document: the server's work per keystroke.
func BenchmarkApplyKeystroke(b *testing.B) {
	doc := starterSized()
	n := Length(doc)
	changes := insertAt(n/2, n, "x")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := ApplyChanges(doc, changes); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPushKeystroke is a whole push of one keystroke through the
// Authority over the memory store, the document growing as it goes.
func BenchmarkPushKeystroke(b *testing.B) {
	ctx := context.Background()
	doc := starterSized()
	a := NewAuthority(NewMemoryStore(), Options{Initial: func(context.Context, string) (string, error) { return doc, nil }})
	text, v, _ := a.Text(ctx, "d")
	n := Length(text)
	for b.Loop() {
		r, err := a.Push(ctx, "d", v, []Update{{ClientID: "c", Changes: insertAt(n/2, n, "x")}})
		if err != nil || !r.Accepted() {
			b.Fatal(r, err)
		}
		v, n = r.Version, n+1
	}
}

// BenchmarkTextAtReplay rebuilds a document from 1,000 keystrokes, as the
// Authority does on start and replay does for a moment of the session.
func BenchmarkTextAtReplay(b *testing.B) {
	doc := starterSized()
	n := Length(doc)
	ups := make([]Update, 1000)
	for i := range ups {
		ups[i] = Update{ClientID: "c", Changes: insertAt(n/2, n, fmt.Sprint(i%10))}
		n++
	}
	for b.Loop() {
		if _, err := TextAt(doc, ups, len(ups)); err != nil {
			b.Fatal(err)
		}
	}
}
