package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/collab"
	"github.com/faultline-dev/faultline/internal/storage"
)

// DocName is the collab document of item's code in a room: the room's id,
// then the document's name within the room's log ("code/<item>").
func DocName(roomID string, item int) string { return roomID + "/" + codeDoc(item) }

func codeDoc(item int) string { return "code/" + strconv.Itoa(item) }

// splitDoc is DocName's inverse.
func splitDoc(doc string) (roomID, name string, err error) {
	roomID, name, ok := strings.Cut(doc, "/")
	if !ok || roomID == "" || name == "" {
		return "", "", fmt.Errorf("rooms: %q is not a room's document", doc)
	}
	return roomID, name, nil
}

// ClientID prefixes: the server gives each participant's editor a client
// id starting with its role, and refuses a push whose updates claim
// another, so the log's actor of a code.update is the role that typed it.
const (
	interviewerClient = "interviewer-"
	candidateClient   = "candidate-"
)

// ClientID is a fresh collab client id for a's editor.
func ClientID(a Access) string { return string(a.Role) + "-" + randomToken(9) }

func actorOfClient(id string) string {
	switch {
	case strings.HasPrefix(id, interviewerClient):
		return storage.ActorInterviewer
	case strings.HasPrefix(id, candidateClient):
		return storage.ActorCandidate
	}
	return storage.ActorSystem
}

// DocStore is collab.Store over the rooms' event logs: each update is a
// code.update event (visible to everyone) of the room the document name
// starts with, so the editor's history is replayed with everything else,
// and storage.AppendDocUpdates lands an append only from the document's
// latest version however many writers (or server instances) race.
type DocStore struct{ s *Service }

// Append implements collab.Store.
func (d DocStore) Append(ctx context.Context, doc string, base int, ups []collab.Update) error {
	roomID, name, err := splitDoc(doc)
	if err != nil {
		return err
	}
	if len(ups) == 0 {
		return nil
	}
	payloads := make([][]byte, len(ups))
	for i, u := range ups {
		if payloads[i], err = jsonMarshal(u); err != nil {
			return err
		}
	}
	out, err := d.s.store.AppendDocUpdates(ctx, roomID, name, int64(base), d.s.now(), actorOfClient(ups[0].ClientID), KindCodeUpdate, rawAll(payloads))
	switch {
	case errors.Is(err, storage.ErrVersionConflict):
		return collab.ErrConflict
	case err != nil:
		return d.s.closedErr(ctx, roomID, err)
	}
	d.s.publish(ctx, roomID, out[len(out)-1].Seq)
	return nil
}

// Since implements collab.Store.
func (d DocStore) Since(ctx context.Context, doc string, version int) ([]collab.Update, error) {
	roomID, name, err := splitDoc(doc)
	if err != nil {
		return nil, err
	}
	if version < 0 {
		return nil, fmt.Errorf("%w: %d", collab.ErrVersion, version)
	}
	evs, err := d.s.docUpdates(ctx, roomID, name, int64(version))
	if err != nil {
		return nil, err
	}
	if len(evs) == 0 && version > 0 {
		latest, err := d.s.store.DocVersion(ctx, roomID, name)
		if err != nil {
			return nil, err
		}
		if int64(version) > latest {
			return nil, fmt.Errorf("%w: %d (latest is %d)", collab.ErrVersion, version, latest)
		}
	}
	out := make([]collab.Update, len(evs))
	for i, ev := range evs {
		if err := decode(ev, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Service) docUpdates(ctx context.Context, roomID, name string, after int64) ([]storage.RoomEvent, error) {
	var out []storage.RoomEvent
	for {
		page, err := s.store.DocUpdatesSince(ctx, roomID, name, after, storage.MaxRoomEventsRead)
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

// initialText is a document's version 0: the item's starter code in the
// room's language.
func (s *Service) initialText(ctx context.Context, doc string) (string, error) {
	roomID, name, err := splitDoc(doc)
	if err != nil {
		return "", err
	}
	r, err := s.store.Room(ctx, roomID)
	if err != nil {
		return "", err
	}
	items, err := s.itemsOf(r.SourceKind, r.SourceSlug, r.Language)
	if err != nil {
		return "", err
	}
	for _, it := range items {
		if it.HasCode() && codeDoc(it.Index) == name {
			return it.Starter(), nil
		}
	}
	return "", fmt.Errorf("rooms: room %s has no document %q", roomID, name)
}

// codeItem checks that item of a's room has code.
func codeItem(a Access, item int) (Item, error) {
	if item < 0 || item >= len(a.Items) || !a.Items[item].HasCode() {
		return Item{}, inputErrorf("step %d has no shared code", item+1)
	}
	return a.Items[item], nil
}

// Push offers the shared editor's updates of item's code, made on version
// base. The outcome (accepted, conflict, rejected) is data for the editor;
// the error is the system's.
func (s *Service) Push(ctx context.Context, a Access, item, base int, ups []collab.Update) (collab.PushResult, error) {
	if _, err := codeItem(a, item); err != nil {
		return collab.PushResult{}, err
	}
	for i, u := range ups {
		if actorOfClient(u.ClientID) != a.actor() {
			return collab.PushResult{}, inputErrorf("update %d comes from another participant's editor", i)
		}
		if u.Selection != nil {
			if u.Selection.Colour < 0 || u.Selection.Colour > 3 {
				return collab.PushResult{}, inputErrorf("update %d: a selection's colour is 0 to 3, not %d", i, u.Selection.Colour)
			}
			// The cursor's label is the role's, whatever the page says,
			// as for a cursor.moved report.
			sel := *u.Selection
			sel.Name = roleName(a.Role)
			ups[i].Selection = &sel
		}
	}
	return s.docs.Push(ctx, DocName(a.Room.ID, item), base, ups)
}

// Pull returns item's code updates after version since.
func (s *Service) Pull(ctx context.Context, a Access, item, since int) ([]collab.Update, error) {
	if _, err := codeItem(a, item); err != nil {
		return nil, err
	}
	ups, err := s.docs.Pull(ctx, DocName(a.Room.ID, item), since)
	if errors.Is(err, collab.ErrVersion) {
		return nil, inputErrorf("the code has no version %d", since)
	}
	return ups, err
}

// CodeText is the item's code as the shared editor holds it now, and its
// version.
func (s *Service) CodeText(ctx context.Context, a Access, it Item) (string, int64, error) {
	if !it.HasCode() {
		return "", 0, nil
	}
	text, v, err := s.docs.Text(ctx, DocName(a.Room.ID, it.Index))
	return text, int64(v), err
}

func jsonMarshal(u collab.Update) ([]byte, error) {
	data, err := json.Marshal(u)
	if err != nil {
		return nil, fmt.Errorf("rooms: encode an editor update: %w", err)
	}
	return data, nil
}

func rawAll(bs [][]byte) []json.RawMessage {
	out := make([]json.RawMessage, len(bs))
	for i, b := range bs {
		out[i] = b
	}
	return out
}
