package collab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Update is one step of a document's history as @codemirror/collab makes
// it: the client that made it and its change set (ChangeSet.toJSON()).
// Selection, when set, is where that client's cursor and selection were
// once the update applied: an editor puts its selection on the last
// update of a push, so a keystroke and the cursor it moved are one
// update, stored and delivered together, rather than a write each.
type Update struct {
	ClientID  string          `json:"clientID"`
	Changes   json.RawMessage `json:"changes"`
	Selection *Selection      `json:"selection,omitempty"`
}

// Selection is a client's selection in the text after an update, as the
// other editors draw it: Anchor and Head in UTF-16 code units (equal for
// a bare cursor), with the participant's Name and Colour (a palette
// index) for the label. The authority checks the positions against the
// text; what the name and colour may be is its caller's business.
type Selection struct {
	Anchor int    `json:"anchor"`
	Head   int    `json:"head"`
	Name   string `json:"name,omitempty"`
	Colour int    `json:"colour"`
}

// ErrConflict is Store.Append's answer when the document's latest version
// is not the base the updates were made on: another writer got there
// first.
var ErrConflict = errors.New("collab: the document has moved past the base version")

// ErrVersion is the answer to a request for a version the document does
// not have (negative, or ahead of the latest): a client's mistake.
var ErrVersion = errors.New("collab: no such version")

// Store keeps each document's updates in order. Version v of a document is
// its starting text with its first v updates applied.
//
// Implementations must be safe for concurrent use, and Append must be
// atomic even across processes sharing the store: two writers appending
// on the same base must see one succeed and the other get ErrConflict,
// never both succeed (a unique key on document and version does it in
// SQL).
type Store interface {
	// Append stores ups as versions base+1, base+2, ... of doc, all or
	// none. It returns ErrConflict when doc's latest version is not base.
	Append(ctx context.Context, doc string, base int, ups []Update) error
	// Since returns the updates after version, in order: versions
	// version+1 to the latest. A version past the latest is ErrVersion.
	Since(ctx context.Context, doc string, version int) ([]Update, error)
}

// MemoryStore is a Store in memory, for tests and as the reference the
// store conformance tests (collabtest) hold other stores to.
type MemoryStore struct {
	mu   sync.Mutex
	docs map[string][]Update
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{docs: map[string][]Update{}} }

// Append implements Store.
func (s *MemoryStore) Append(ctx context.Context, doc string, base int, ups []Update) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	have := s.docs[doc]
	if base != len(have) {
		return fmt.Errorf("%w: base %d, latest %d", ErrConflict, base, len(have))
	}
	for _, u := range ups {
		s.docs[doc] = append(s.docs[doc], cloneUpdate(u))
	}
	return nil
}

// Since implements Store.
func (s *MemoryStore) Since(ctx context.Context, doc string, version int) ([]Update, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	have := s.docs[doc]
	if version < 0 || version > len(have) {
		return nil, fmt.Errorf("%w: %d (latest is %d)", ErrVersion, version, len(have))
	}
	out := make([]Update, 0, len(have)-version)
	for _, u := range have[version:] {
		out = append(out, cloneUpdate(u))
	}
	return out, nil
}

// cloneUpdate copies the change set's bytes, so that neither the caller
// nor the store can change the other's copy.
func cloneUpdate(u Update) Update {
	c := Update{ClientID: u.ClientID, Changes: append(json.RawMessage(nil), u.Changes...)}
	if u.Selection != nil {
		sel := *u.Selection
		c.Selection = &sel
	}
	return c
}
