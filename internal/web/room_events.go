package web

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/labstack/echo/v4"

	"github.com/faultline-dev/faultline/internal/live"
	"github.com/faultline-dev/faultline/internal/rooms"
	"github.com/faultline-dev/faultline/internal/storage"
)

// roomEventData is the data of one event of a room's stream. It carries
// what the page applies directly (an editor update, a cursor) and
// otherwise only says what happened: the page then fetches its panel,
// rendered by the server for its role. What the candidate's stream sends
// comes from the public reader only (rooms.Service.EventsAfter).
type roomEventData struct {
	Seq     int64           `json:"seq"`
	Kind    string          `json:"kind"`
	Actor   string          `json:"actor"`
	Item    *int            `json:"item,omitempty"`
	Version int64           `json:"version,omitempty"` // code.update: the document's version after it
	Update  json.RawMessage `json:"update,omitempty"`  // code.update: {clientID, changes}
	Cursor  json.RawMessage `json:"cursor,omitempty"`  // cursor.moved: the editor's selection report
}

// roomEvents streams the room's log to the page, from Last-Event-ID on,
// so a dropped connection resumes with nothing lost or repeated.
func (s *Server) roomEvents(c echo.Context) error {
	a := accessOf(c)
	after, err := live.LastEventID(c.Request())
	if err != nil {
		return badRequest("The Last-Event-ID of this stream is not a whole number.")
	}
	leave, refused := s.streams.enter(a.Room.ID+"/"+string(a.Role), clientOf(c.Request().Context()).key)
	if refused != "" {
		return refuseStream(c, refused)
	}
	defer leave()
	// The stream ends when the room expires: the page's reconnection is
	// then refused with 410, as every other request of the room is.
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.rooms.OpenFor(a))
	defer cancel()
	// Open for the room's life, with events of a few hundred bytes:
	// compressing it would cost more memory than it saves bytes.
	sendUncompressed(c.Response())
	w := live.NewWriter(c.Response(), live.WriterOptions{IdleClose: s.streams.idle, KeepAlive: s.streams.keepLive})
	if err := w.Start(); err != nil {
		return nil // the client left
	}
	read := func(ctx context.Context, after int64, limit int) ([]live.Event, error) {
		evs, err := s.rooms.EventsAfter(ctx, a, after, limit)
		if err != nil {
			return nil, err
		}
		out := make([]live.Event, 0, len(evs))
		for _, ev := range evs {
			le, err := roomLiveEvent(ev, rooms.StreamSeq(a, ev))
			if err != nil {
				return nil, err
			}
			out = append(out, le)
		}
		return out, nil
	}
	if err := live.Follow(ctx, w, s.broker, rooms.Topic(a.Room.ID), read, after); err != nil {
		s.log.Warn("web: a room's stream failed", slog.String("room", a.Room.ID), slog.Any("err", err))
	}
	return nil
}

// roomLiveEvent is ev as a stream sends it, numbered seq (rooms.StreamSeq).
func roomLiveEvent(ev storage.RoomEvent, seq int64) (live.Event, error) {
	d := roomEventData{Seq: seq, Kind: ev.Kind, Actor: ev.Actor}
	switch ev.Kind {
	case rooms.KindCodeUpdate:
		item, err := codeItemOf(ev.Doc)
		if err != nil {
			return live.Event{}, err
		}
		d.Item, d.Version, d.Update = &item, ev.DocVersion, ev.Payload
	case rooms.KindCursor:
		var p struct {
			Item int `json:"item"`
		}
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			return live.Event{}, fmt.Errorf("web: room %s event %d: %w", ev.RoomID, ev.Seq, err)
		}
		d.Item, d.Cursor = &p.Item, ev.Payload
	}
	data, err := json.Marshal(d)
	if err != nil {
		return live.Event{}, fmt.Errorf("web: encode room event %d: %w", ev.Seq, err)
	}
	return live.Event{Seq: seq, Name: ev.Kind, Data: data, Last: ev.Kind == rooms.KindEnded}, nil
}

// codeItemOf reads the item from a code document's name ("code/3").
func codeItemOf(doc string) (int, error) {
	var item int
	if _, err := fmt.Sscanf(doc, "code/%d", &item); err != nil {
		return 0, fmt.Errorf("web: %q is not a code document", doc)
	}
	return item, nil
}
