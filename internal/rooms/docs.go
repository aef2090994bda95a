package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/faultline-dev/faultline/internal/storage"
)

// DocUpdate is one shared-editor step as @codemirror/collab makes it
// (collab.Update has the same JSON): stored whole as a code.update
// event's payload.
type DocUpdate = json.RawMessage

// Docs is a room's shared documents seen by one participant, the shape
// of store the collab authority asks for: its updates are events of the
// room's log, so they are replayed with everything else, and an append
// lands only from the document's latest version (storage.AppendDocUpdates)
// however many writers race.
type Docs struct {
	s *Service
	a Access
}

// Docs returns the room's documents as a's holder writes them.
func (s *Service) Docs(a Access) Docs { return Docs{s: s, a: a} }

// Append stores ups as versions base+1... of doc; ErrConflict when doc is
// past base.
func (d Docs) Append(ctx context.Context, doc string, base int, ups []DocUpdate) error {
	if err := d.check(doc); err != nil {
		return err
	}
	out, err := d.s.store.AppendDocUpdates(ctx, d.a.Room.ID, doc, int64(base), d.s.now(), d.a.actor(), KindCodeUpdate, ups)
	switch {
	case errors.Is(err, storage.ErrVersionConflict):
		return ErrConflict
	case err != nil:
		return d.s.closedErr(ctx, d.a.Room.ID, err)
	}
	if len(out) > 0 {
		d.s.publish(ctx, d.a.Room.ID, out[len(out)-1].Seq)
	}
	return nil
}

// Since returns doc's updates after version, in order.
func (d Docs) Since(ctx context.Context, doc string, version int) ([]DocUpdate, error) {
	if err := d.check(doc); err != nil {
		return nil, err
	}
	evs, err := d.s.docUpdates(ctx, d.a.Room.ID, doc, int64(version))
	if err != nil {
		return nil, err
	}
	out := make([]DocUpdate, len(evs))
	for i, ev := range evs {
		out[i] = ev.Payload
	}
	return out, nil
}

// check allows only the documents of the room's items.
func (d Docs) check(doc string) error {
	for _, it := range d.a.Items {
		if doc != "" && it.CodeDoc() == doc {
			return nil
		}
	}
	return inputErrorf("this room has no document %q", doc)
}

func (s *Service) docUpdates(ctx context.Context, roomID, doc string, after int64) ([]storage.RoomEvent, error) {
	var out []storage.RoomEvent
	for {
		page, err := s.store.DocUpdatesSince(ctx, roomID, doc, after, storage.MaxRoomEventsRead)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < storage.MaxRoomEventsRead {
			return out, nil
		}
		after = page[len(page)-1].DocVersion
	}
}

// CodeText is the item's code as the shared editor holds it now, and its
// version: the starter with every update applied.
func (s *Service) CodeText(ctx context.Context, a Access, it Item) (string, int64, error) {
	if it.CodeDoc() == "" {
		return "", 0, nil
	}
	text := it.Problem.Code.Starter
	evs, err := s.docUpdates(ctx, a.Room.ID, it.CodeDoc(), 0)
	if err != nil {
		return "", 0, err
	}
	if s.apply == nil || len(evs) == 0 {
		return text, int64(len(evs)), nil
	}
	for _, ev := range evs {
		if text, err = s.apply(text, ev.Payload); err != nil {
			return "", 0, fmt.Errorf("rooms: room %s document %s version %d: %w", a.Room.ID, ev.Doc, ev.DocVersion, err)
		}
	}
	return text, int64(len(evs)), nil
}
