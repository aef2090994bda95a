package collab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// Limits of what one push may hold and how large a document may grow.
const (
	// MaxDocLength caps a document, in UTF-16 code units. The starter
	// code of the largest problem is about 5,000; 256 Ki leaves room for
	// any honest solution while bounding what the server rebuilds on
	// every start and replay copies per step.
	MaxDocLength = 256 << 10
	// MaxPushBytes caps the change sets of one push together (and so of
	// one update). A paste of a whole maximal document with every code
	// unit written as a 6-byte JSON escape is 1.5 MiB, so an honest update
	// always fits; a request body limit of this plus the envelope follows.
	MaxPushBytes = 2 << 20
	// MaxPushUpdates caps the updates of one push. An editor sends every
	// update it has not had confirmed, one per transaction, so after a
	// long disconnection it may hold hundreds; the editor bundle sends
	// them in batches of at most this many (collab confirms a prefix).
	MaxPushUpdates = 100
	// MaxClientIDLength caps a client id: @codemirror/collab's own are
	// short random strings; the rooms give one per participant.
	MaxClientIDLength = 64
)

// PushResult is the outcome of a push the authority could judge. A
// conflict and a rejected update are the client's business, not failures
// of the server, so they are data here; Push's error is for a store that
// broke.
type PushResult struct {
	// Version is the document's latest version: after the push when it
	// was accepted, else the one the client is behind.
	Version int
	// Conflict: base was not the latest version. The client must pull the
	// updates since its version, let @codemirror/collab rebase its own
	// over them, and push again.
	Conflict bool
	// Rejected says why the push was refused without being stored
	// ("update 2: changes part 0: ..."); empty when it was accepted or
	// was a conflict. Nothing of a rejected push is kept.
	Rejected string
}

// Accepted reports whether the updates were stored.
func (r PushResult) Accepted() bool { return !r.Conflict && r.Rejected == "" }

// Options configure an Authority.
type Options struct {
	// Initial returns a document's text at version 0 (a problem's starter
	// code); nil means every document starts empty. Its "\r\n" become
	// "\n", as in the editors.
	Initial func(ctx context.Context, doc string) (string, error)
	// Advanced, when set, is called after updates were stored: doc is now
	// at version, the last of ups. It runs while the document is locked,
	// so calls for one document come in version order; it must return
	// quickly (hand off to a broker) and must not call the Authority for
	// the same document.
	Advanced func(doc string, version int, ups []Update)
}

// Authority orders each document's changes: it checks that every update
// applies to the latest text, stores it through the Store and keeps the
// latest text of each document it has seen. Its cache is only a cache: the
// store is the truth, so several Authorities (one per server process) may
// share one store.
type Authority struct {
	store Store
	opts  Options

	mu   sync.Mutex
	docs map[string]*docState
}

// docState is the cached latest text of one document.
type docState struct {
	mu      sync.Mutex
	loaded  bool
	text    string
	version int
}

// NewAuthority returns an Authority over store.
func NewAuthority(store Store, opts Options) *Authority {
	return &Authority{store: store, opts: opts, docs: map[string]*docState{}}
}

func (a *Authority) state(doc string) *docState {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.docs[doc]
	if st == nil {
		st = &docState{}
		a.docs[doc] = st
	}
	return st
}

// Forget drops the cached text of doc (a room that ended); the next call
// rebuilds it from the store.
func (a *Authority) Forget(doc string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.docs, doc)
}

// Push offers ups, made on version base of doc. They are accepted only if
// base is the latest version and every update applies, in order, to the
// text: then they are stored as base+1, base+2, ... and Advanced is told.
func (a *Authority) Push(ctx context.Context, doc string, base int, ups []Update) (PushResult, error) {
	parsed, why := checkPush(base, ups)
	st := a.state(doc)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := a.load(ctx, doc, st); err != nil {
		return PushResult{}, err
	}
	if why != "" {
		return PushResult{Version: st.version, Rejected: why}, nil
	}
	if base > st.version {
		// Another process may have stored versions this one has not seen.
		if err := a.catchUp(ctx, doc, st); err != nil {
			return PushResult{}, err
		}
	}
	switch {
	case base > st.version:
		return PushResult{Version: st.version, Rejected: fmt.Sprintf("base version %d is ahead of the document's latest, %d", base, st.version)}, nil
	case base < st.version:
		return PushResult{Version: st.version, Conflict: true}, nil
	}

	text := st.text
	for i, c := range parsed {
		next, err := c.Apply(text)
		if err != nil {
			return PushResult{Version: st.version, Rejected: fmt.Sprintf("update %d: %v", i, err)}, nil
		}
		n := Length(next)
		if n > MaxDocLength {
			return PushResult{Version: st.version, Rejected: fmt.Sprintf("update %d makes the document %d UTF-16 code units long; the limit is %d", i, n, MaxDocLength)}, nil
		}
		if sel := ups[i].Selection; sel != nil && (sel.Anchor < 0 || sel.Head < 0 || sel.Anchor > n || sel.Head > n) {
			return PushResult{Version: st.version, Rejected: fmt.Sprintf("update %d: its selection %d-%d is outside the text it leaves, of %d UTF-16 code units", i, sel.Anchor, sel.Head, n)}, nil
		}
		text = next
	}
	if err := a.store.Append(ctx, doc, base, ups); err != nil {
		if errors.Is(err, ErrConflict) {
			if err := a.catchUp(ctx, doc, st); err != nil {
				return PushResult{}, err
			}
			return PushResult{Version: st.version, Conflict: true}, nil
		}
		return PushResult{}, fmt.Errorf("collab: store updates of %q: %w", doc, err)
	}
	st.text, st.version = text, base+len(ups)
	if a.opts.Advanced != nil {
		a.opts.Advanced(doc, st.version, ups)
	}
	return PushResult{Version: st.version}, nil
}

// checkPush checks what can be checked without the document: the base,
// the number of updates, and each update's client id and change set's
// shape. It returns the decoded change sets, or why the push is refused.
func checkPush(base int, ups []Update) ([]Changes, string) {
	switch {
	case base < 0:
		return nil, fmt.Sprintf("base version %d is negative", base)
	case len(ups) == 0:
		return nil, "a push needs at least one update"
	case len(ups) > MaxPushUpdates:
		return nil, fmt.Sprintf("%d updates in one push; the limit is %d", len(ups), MaxPushUpdates)
	}
	parsed := make([]Changes, len(ups))
	size := 0
	for i, u := range ups {
		switch {
		case u.ClientID == "":
			return nil, fmt.Sprintf("update %d has no clientID", i)
		case len(u.ClientID) > MaxClientIDLength:
			return nil, fmt.Sprintf("update %d: clientID of %d bytes; the limit is %d", i, len(u.ClientID), MaxClientIDLength)
		case u.Selection != nil && len(u.Selection.Name) > MaxClientIDLength:
			return nil, fmt.Sprintf("update %d: its selection's name is %d bytes; the limit is %d", i, len(u.Selection.Name), MaxClientIDLength)
		}
		if size += len(u.Changes); size > MaxPushBytes {
			return nil, fmt.Sprintf("update %d: the push's changes pass %d bytes, the limit", i, MaxPushBytes)
		}
		c, err := ParseChanges(u.Changes)
		if err != nil {
			return nil, fmt.Sprintf("update %d: %v", i, err)
		}
		parsed[i] = c
	}
	return parsed, ""
}

// Pull returns the updates of doc after version since, in order.
// A version the document does not have is ErrVersion.
func (a *Authority) Pull(ctx context.Context, doc string, since int) ([]Update, error) {
	ups, err := a.store.Since(ctx, doc, since)
	if err != nil && !errors.Is(err, ErrVersion) {
		return nil, fmt.Errorf("collab: read updates of %q: %w", doc, err)
	}
	return ups, err
}

// Text returns the latest text of doc and its version.
func (a *Authority) Text(ctx context.Context, doc string) (string, int, error) {
	st := a.state(doc)
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := a.load(ctx, doc, st); err != nil {
		return "", 0, err
	}
	if err := a.catchUp(ctx, doc, st); err != nil {
		return "", 0, err
	}
	return st.text, st.version, nil
}

// load fills an empty cache: the initial text and every stored update.
func (a *Authority) load(ctx context.Context, doc string, st *docState) error {
	if st.loaded {
		return nil
	}
	initial := ""
	if a.opts.Initial != nil {
		var err error
		if initial, err = a.opts.Initial(ctx, doc); err != nil {
			return fmt.Errorf("collab: initial text of %q: %w", doc, err)
		}
	}
	st.text, st.version = NormalizeNewlines(initial), 0
	if err := a.catchUp(ctx, doc, st); err != nil {
		return err
	}
	st.loaded = true
	return nil
}

// catchUp applies the stored updates the cache has not seen.
func (a *Authority) catchUp(ctx context.Context, doc string, st *docState) error {
	ups, err := a.store.Since(ctx, doc, st.version)
	if err != nil {
		return fmt.Errorf("collab: read updates of %q since %d: %w", doc, st.version, err)
	}
	text := st.text
	for i, u := range ups {
		if text, err = ApplyChanges(text, u.Changes); err != nil {
			return fmt.Errorf("collab: stored version %d of %q does not apply: %w", st.version+i+1, doc, err)
		}
	}
	st.text, st.version = text, st.version+len(ups)
	return nil
}

// TextAt returns the text at version v of a document that started as
// initial and has the updates ups (version 1 first): one moment of a
// replay. It applies v updates; to visit many moments, Replay walks the
// history once.
func TextAt(initial string, ups []Update, v int) (string, error) {
	if v < 0 || v > len(ups) {
		return "", fmt.Errorf("%w: %d (the history has %d updates)", ErrVersion, v, len(ups))
	}
	text := NormalizeNewlines(initial)
	for i, u := range ups[:v] {
		var err error
		if text, err = ApplyChanges(text, u.Changes); err != nil {
			return "", fmt.Errorf("collab: version %d: %w", i+1, err)
		}
	}
	return text, nil
}

// Replay walks a document's history once: visit sees the text at version
// 0 (initial), then after each update, and stops the walk by returning
// false. A replay's timeline asks for the text at every event; calling
// TextAt for each would apply the history again and again.
func Replay(initial string, ups []Update, visit func(version int, text string) bool) error {
	text := NormalizeNewlines(initial)
	if !visit(0, text) {
		return nil
	}
	for i, u := range ups {
		var err error
		if text, err = ApplyChanges(text, u.Changes); err != nil {
			return fmt.Errorf("collab: version %d: %w", i+1, err)
		}
		if !visit(i+1, text) {
			return nil
		}
	}
	return nil
}

// ForgetPrefix drops the cached text of every document whose name starts
// with prefix (a deleted room's documents).
func (a *Authority) ForgetPrefix(prefix string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for doc := range a.docs {
		if strings.HasPrefix(doc, prefix) {
			delete(a.docs, doc)
		}
	}
}
