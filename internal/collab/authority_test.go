package collab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func ch(s string) json.RawMessage { return json.RawMessage(s) }

func up(client, changes string) Update { return Update{ClientID: client, Changes: ch(changes)} }

// sel puts a selection on u.
func sel(u Update, anchor, head int) Update {
	u.Selection = &Selection{Anchor: anchor, Head: head, Name: "A", Colour: 1}
	return u
}

// insertAt is the change set that inserts s at pos of a document of n
// code units.
func insertAt(pos, n int, s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return ch(fmt.Sprintf(`[%d,[0,%s],%d]`, pos, b, n-pos))
}

func TestAuthorityPush(t *testing.T) {
	type push struct {
		base int
		ups  []Update
		want PushResult
	}
	tests := []struct {
		name   string
		pushes []push
		text   string // the text after every push
	}{
		{
			name: "accepted in order",
			pushes: []push{
				{0, []Update{up("a", `[[0,"hello"],3]`)}, PushResult{Version: 1}},
				{1, []Update{up("b", `[8,[0,"!"]]`), up("b", `[9,[0,"?"]]`)}, PushResult{Version: 3}},
			},
			text: "hellofoo!?",
		},
		{
			name: "conflict on an old base",
			pushes: []push{
				{0, []Update{up("a", `[3,[0,"1"]]`)}, PushResult{Version: 1}},
				{0, []Update{up("b", `[3,[0,"2"]]`)}, PushResult{Version: 1, Conflict: true}},
			},
			text: "foo1",
		},
		{
			name: "a base ahead is refused",
			pushes: []push{
				{4, []Update{up("a", `[3]`)}, PushResult{Rejected: "base version 4 is ahead of the document's latest, 0"}},
			},
			text: "foo",
		},
		{
			name: "wrong length refused, nothing kept",
			pushes: []push{
				{0, []Update{up("a", `[3,[0,"x"]]`), up("a", `[3,[0,"y"]]`)}, PushResult{Rejected: "update 1: collab: changes are for a document of 3 UTF-16 code units, but this one has 4"}},
				{0, []Update{up("a", `[[3,"bar"]]`)}, PushResult{Version: 1}},
			},
			text: "bar",
		},
		{
			name: "bad shapes refused",
			pushes: []push{
				{0, nil, PushResult{Rejected: "a push needs at least one update"}},
				{-1, []Update{up("a", `[3]`)}, PushResult{Rejected: "base version -1 is negative"}},
				{0, []Update{up("", `[3]`)}, PushResult{Rejected: "update 0 has no clientID"}},
				{0, []Update{up(strings.Repeat("c", MaxClientIDLength+1), `[3]`)}, PushResult{Rejected: "update 0: clientID of 65 bytes; the limit is 64"}},
				{0, []Update{up("a", `[3]`), up("a", `{}`)}, PushResult{Rejected: "update 1: collab: changes must be a JSON array of parts: {}"}},
			},
			text: "foo",
		},
		{
			// A selection is checked against the text its update leaves,
			// which may be longer or shorter than the one before.
			name: "selections within the text they follow",
			pushes: []push{
				{0, []Update{sel(up("a", `[3,[0,"!"]]`), 4, 4)}, PushResult{Version: 1}},
				{1, []Update{sel(up("a", `[[4]]`), 0, 1)}, PushResult{Version: 1, Rejected: "update 0: its selection 0-1 is outside the text it leaves, of 0 UTF-16 code units"}},
				{1, []Update{up("a", `[[0,"ab"],4]`), sel(up("a", `[6,[0,"c"]]`), 7, 0)}, PushResult{Version: 3}},
				{3, []Update{sel(up("a", `[7]`), -1, 0)}, PushResult{Version: 3, Rejected: "update 0: its selection -1-0 is outside the text it leaves, of 7 UTF-16 code units"}},
				{3, []Update{{ClientID: "a", Changes: ch(`[7]`), Selection: &Selection{Name: strings.Repeat("n", 65)}}},
					PushResult{Version: 3, Rejected: "update 0: its selection's name is 65 bytes; the limit is 64"}},
			},
			text: "abfoo!c",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			store := NewMemoryStore()
			a := NewAuthority(store, Options{Initial: func(context.Context, string) (string, error) { return "foo", nil }})
			for i, p := range tc.pushes {
				got, err := a.Push(ctx, "doc", p.base, p.ups)
				if err != nil {
					t.Fatalf("push %d: %v", i, err)
				}
				if got != p.want {
					t.Fatalf("push %d = %+v; want %+v", i, got, p.want)
				}
			}
			text, v, err := a.Text(ctx, "doc")
			if err != nil || text != tc.text {
				t.Fatalf("Text = %q, %v; want %q", text, err, tc.text)
			}
			// What the store holds rebuilds the same text: a rejected
			// push left nothing behind.
			stored, _ := store.Since(ctx, "doc", 0)
			if len(stored) != v {
				t.Fatalf("the store holds %d updates at version %d", len(stored), v)
			}
			if replay, err := TextAt("foo", stored, v); err != nil || replay != text {
				t.Fatalf("replay = %q, %v; the authority has %q", replay, err, text)
			}
		})
	}
}

func TestAuthorityLimits(t *testing.T) {
	ctx := context.Background()
	a := NewAuthority(NewMemoryStore(), Options{})
	many := make([]Update, MaxPushUpdates+1)
	for i := range many {
		many[i] = up("a", fmt.Sprintf(`[[0,"x"],%d]`, i))
	}
	if r, _ := a.Push(ctx, "d", 0, many); !strings.Contains(r.Rejected, "101 updates in one push; the limit is 100") {
		t.Errorf("a push of %d updates: %+v", len(many), r)
	}
	if r, _ := a.Push(ctx, "d", 0, many[:MaxPushUpdates]); !r.Accepted() || r.Version != MaxPushUpdates {
		t.Errorf("a push of exactly the limit: %+v", r)
	}

	big := strings.Repeat("x", MaxDocLength/2)
	if r, _ := a.Push(ctx, "big", 0, []Update{{ClientID: "a", Changes: insertAt(0, 0, big)}}); !r.Accepted() {
		t.Fatalf("half the limit: %+v", r)
	}
	r, _ := a.Push(ctx, "big", 1, []Update{{ClientID: "a", Changes: insertAt(0, len(big), big+"y")}})
	if want := fmt.Sprintf("update 0 makes the document %d UTF-16 code units long; the limit is %d", MaxDocLength+1, MaxDocLength); r.Rejected != want {
		t.Errorf("one past the limit: %+v; want %q", r, want)
	}

	huge := strings.Repeat(`\u00e9`, MaxPushBytes/6+1)
	r, _ = a.Push(ctx, "huge", 0, []Update{{ClientID: "a", Changes: ch(`[[0,"` + huge + `"]]`)}})
	if !strings.Contains(r.Rejected, "the push's changes pass 2097152 bytes") {
		t.Errorf("an update over MaxPushBytes: %+v", r)
	}
}

func TestAuthorityInitialAndPull(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryStore()
	calls := 0
	a := NewAuthority(store, Options{Initial: func(_ context.Context, doc string) (string, error) {
		calls++
		if doc == "broken" {
			return "", errors.New("no such room")
		}
		return "a\r\nb\r", nil
	}})
	text, v, err := a.Text(ctx, "doc")
	if err != nil || text != "a\nb\n" || v != 0 {
		t.Fatalf("Text = %q, %d, %v; want the initial text with \\n line ends at version 0", text, v, err)
	}
	if _, _, err := a.Text(ctx, "broken"); err == nil || !strings.Contains(err.Error(), "no such room") {
		t.Errorf("Text of a document whose initial text fails: %v", err)
	}
	if r, err := a.Push(ctx, "doc", 0, []Update{up("a", `[4,[0,"c"]]`)}); err != nil || !r.Accepted() {
		t.Fatalf("push: %+v, %v", r, err)
	}
	ups, err := a.Pull(ctx, "doc", 0)
	if err != nil || len(ups) != 1 || string(ups[0].Changes) != `[4,[0,"c"]]` {
		t.Fatalf("Pull(0) = %v, %v", ups, err)
	}
	if ups, err := a.Pull(ctx, "doc", 1); err != nil || len(ups) != 0 {
		t.Fatalf("Pull(latest) = %v, %v; want none", ups, err)
	}
	if _, err := a.Pull(ctx, "doc", 2); !errors.Is(err, ErrVersion) {
		t.Fatalf("Pull past the latest: %v; want ErrVersion", err)
	}
	if calls != 2 {
		t.Errorf("Initial called %d times; want once a document (the text is cached)", calls)
	}

	// A new authority (a restarted server) rebuilds the text from the store.
	b := NewAuthority(store, Options{Initial: a.opts.Initial})
	if text, v, err := b.Text(ctx, "doc"); err != nil || text != "a\nb\nc" || v != 1 {
		t.Fatalf("rebuilt Text = %q, %d, %v; want %q at 1", text, v, err, "a\nb\nc")
	}
	a.Forget("doc")
	if text, _, _ := a.Text(ctx, "doc"); text != "a\nb\nc" {
		t.Fatalf("after Forget Text = %q", text)
	}
}

func TestAuthorityAdvanced(t *testing.T) {
	ctx := context.Background()
	var got []string
	a := NewAuthority(NewMemoryStore(), Options{Advanced: func(doc string, v int, ups []Update) {
		got = append(got, fmt.Sprintf("%s@%d+%d", doc, v, len(ups)))
	}})
	a.Push(ctx, "x", 0, []Update{up("a", `[[0,"1"]]`), up("a", `[1,[0,"2"]]`)})
	a.Push(ctx, "x", 0, []Update{up("b", `[[0,"3"]]`)}) // conflict: no call
	a.Push(ctx, "x", 2, []Update{up("b", `[[9,"3"]]`)}) // rejected: no call
	a.Push(ctx, "y", 0, []Update{up("b", `[[0,"3"]]`)})
	if want := []string{"x@2+2", "y@1+1"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Advanced calls %v; want %v", got, want)
	}
}

// brokenStore fails every Append; reads work.
type brokenStore struct{ *MemoryStore }

func (brokenStore) Append(context.Context, string, int, []Update) error {
	return errors.New("disk full")
}

func TestAuthorityStoreFailure(t *testing.T) {
	a := NewAuthority(brokenStore{NewMemoryStore()}, Options{})
	r, err := a.Push(context.Background(), "d", 0, []Update{up("a", `[[0,"x"]]`)})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Push over a failing store = %+v, %v; want the store's error", r, err)
	}
	if text, v, _ := a.Text(context.Background(), "d"); text != "" || v != 0 {
		t.Fatalf("after a failed append the cache says %q at %d", text, v)
	}
}

// TestAuthorityConcurrentPushers has many clients typing into one document
// at once, through one Authority and through several sharing one store (as
// server processes would). Each client retries on conflict with a change
// made on the latest text, as a rebasing editor would. At the end every
// accepted keystroke is in the text, once, and the cached text equals the
// store's replay.
func TestAuthorityConcurrentPushers(t *testing.T) {
	for _, authorities := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d authorities", authorities), func(t *testing.T) {
			ctx := context.Background()
			store := NewMemoryStore()
			initial := func(context.Context, string) (string, error) { return "😀", nil }
			as := make([]*Authority, authorities)
			for i := range as {
				as[i] = NewAuthority(store, Options{Initial: initial})
			}
			const clients, keys = 8, 30
			var wg sync.WaitGroup
			var conflicts [clients]int
			for c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := as[c%authorities]
					rng := rand.New(rand.NewPCG(uint64(c), 7))
					for k := 0; k < keys; {
						text, v, err := a.Text(ctx, "doc")
						if err != nil {
							t.Error(err)
							return
						}
						// Insert at a character boundary, after a random
						// number of characters.
						runes := []rune(text)
						at := Length(string(runes[:rng.IntN(len(runes)+1)]))
						key := string(rune('A' + c))
						r, err := a.Push(ctx, "doc", v, []Update{{ClientID: key, Changes: insertAt(at, Length(text), key)}})
						switch {
						case err != nil:
							t.Error(err)
							return
						case r.Conflict:
							conflicts[c]++
						case r.Rejected != "":
							t.Errorf("client %d: %s", c, r.Rejected)
							return
						default:
							k++
						}
					}
				}()
			}
			wg.Wait()
			stored, err := store.Since(ctx, "doc", 0)
			if err != nil || len(stored) != clients*keys {
				t.Fatalf("the store has %d updates (%v); want %d", len(stored), err, clients*keys)
			}
			replay, err := TextAt("😀", stored, len(stored))
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range as {
				text, v, err := a.Text(ctx, "doc")
				if err != nil || text != replay || v != len(stored) {
					t.Fatalf("authority %d: %q at %d (%v); the store replays to %q at %d", i, text, v, err, replay, len(stored))
				}
			}
			for c := range clients {
				if n := strings.Count(replay, string(rune('A'+c))); n != keys {
					t.Errorf("client %d's key is in the text %d times; want %d", c, n, keys)
				}
			}
			total := 0
			for _, n := range conflicts {
				total += n
			}
			t.Logf("%d pushes accepted, %d conflicts", len(stored), total)
		})
	}
}

// TestAuthorityDeterministic: the same pushes give the same text and
// history, every time.
func TestAuthorityDeterministic(t *testing.T) {
	run := func() (string, string) {
		ctx := context.Background()
		store := NewMemoryStore()
		a := NewAuthority(store, Options{})
		rng := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			text, v, _ := a.Text(ctx, "d")
			runes := []rune(text)
			at := Length(string(runes[:rng.IntN(len(runes)+1)]))
			a.Push(ctx, "d", v, []Update{{ClientID: "x", Changes: insertAt(at, Length(text), string(rune(0x1F600+rng.IntN(40))))}})
		}
		text, _, _ := a.Text(ctx, "d")
		ups, _ := store.Since(ctx, "d", 0)
		b, _ := json.Marshal(ups)
		return text, string(b)
	}
	t1, h1 := run()
	t2, h2 := run()
	if t1 != t2 || h1 != h2 || Length(t1) != 400 {
		t.Fatalf("two runs differ (or the text is not 200 astral characters): %q vs %q", t1, t2)
	}
}

// FuzzAuthorityPush: whatever two pushes hold, the Authority answers
// without panicking, keeps nothing of a push it did not accept, and its
// text is always the store's history replayed.
func FuzzAuthorityPush(f *testing.F) {
	f.Add("😀a", `[3,[0,"x"]]`, `[[4,"y"]]`, 1)
	f.Add("", `[[0,"a","b"]]`, `[1,[0,"\ud83d"],2]`, 1)
	f.Add("abc", `[1,[1],1]`, `[2]`, 0)
	f.Fuzz(func(t *testing.T, initial, first, second string, base int) {
		ctx := context.Background()
		store := NewMemoryStore()
		a := NewAuthority(store, Options{Initial: func(context.Context, string) (string, error) { return initial, nil }})
		for _, p := range []struct {
			base    int
			changes string
		}{{0, first}, {base, second}} {
			before, _ := store.Since(ctx, "d", 0)
			r, err := a.Push(ctx, "d", p.base, []Update{{ClientID: "c", Changes: ch(p.changes)}})
			if err != nil {
				t.Fatalf("Push over a memory store failed: %v", err)
			}
			after, _ := store.Since(ctx, "d", 0)
			if r.Accepted() != (len(after) == len(before)+1) || (!r.Accepted() && len(after) != len(before)) {
				t.Fatalf("Push answered %+v, and the store went from %d to %d updates", r, len(before), len(after))
			}
			text, v, err := a.Text(ctx, "d")
			if err != nil {
				t.Fatal(err)
			}
			replay, err := TextAt(initial, after, len(after))
			if err != nil || replay != text || v != len(after) {
				t.Fatalf("the Authority has %q at %d; the store replays to %q at %d (%v)", text, v, replay, len(after), err)
			}
		}
	})
}

// TestForgetPrefix: the documents named by the prefix are rebuilt from
// the store on their next use; the others stay cached.
func TestForgetPrefix(t *testing.T) {
	ctx := context.Background()
	loads := map[string]int{}
	var mu sync.Mutex
	a := NewAuthority(NewMemoryStore(), Options{Initial: func(_ context.Context, doc string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		loads[doc]++
		return "", nil
	}})
	for _, doc := range []string{"r1/code/0", "r1/code/1", "r10/code/0"} {
		if _, _, err := a.Text(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	a.ForgetPrefix("r1/")
	for _, doc := range []string{"r1/code/0", "r1/code/1", "r10/code/0"} {
		if _, _, err := a.Text(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]int{"r1/code/0": 2, "r1/code/1": 2, "r10/code/0": 1}
	for doc, n := range want {
		if loads[doc] != n {
			t.Errorf("%s loaded %d times; want %d", doc, loads[doc], n)
		}
	}
}
