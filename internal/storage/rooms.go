package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrRoomClosed is returned when something is appended to a room that has
// ended or expired: its log is closed for good.
var ErrRoomClosed = errors.New("storage: the room has ended or expired")

// ErrVersionConflict is returned when shared-editor updates are sent from
// a version the document has already moved past; the sender pulls the
// updates it missed and rebases.
var ErrVersionConflict = errors.New("storage: the document has moved past that version")

// Room sources, actors and visibilities, as the migration's CHECKs spell them.
const (
	RoomFromScreen  = "screen"
	RoomFromProblem = "problem"

	ActorInterviewer = "interviewer"
	ActorCandidate   = "candidate"
	ActorSystem      = "system"

	VisibleToEveryone    = "everyone"
	VisibleToInterviewer = "interviewer"
)

// Room is one live screen. The hashes are SHA-256 of the links' secrets;
// the secrets themselves are never stored.
type Room struct {
	ID         string
	SourceKind string // RoomFromScreen or RoomFromProblem
	SourceSlug string
	// Language is the room's code language, LangGo or LangPython, chosen
	// when it was made; "" is taken as Go by CreateRoom.
	Language        string
	InterviewerHash []byte
	CandidateHash   []byte
	CreatedAt       time.Time
	ExpiresAt       time.Time
	EndedAt         time.Time // zero while the room is open
	LastSeq         int64     // the newest event's seq
}

// Open reports whether events may still be appended at t.
func (r Room) Open(t time.Time) bool { return r.EndedAt.IsZero() && t.Before(r.ExpiresAt) }

// NewRoomEvent is an event to append: the store gives it its seq and time.
type NewRoomEvent struct {
	Actor      string // ActorInterviewer, ActorCandidate or ActorSystem
	Kind       string
	Visibility string // VisibleToEveryone or VisibleToInterviewer
	Payload    json.RawMessage
}

// RoomEvent is one stored event of a room's log.
type RoomEvent struct {
	RoomID     string
	Seq        int64
	At         time.Time
	Actor      string
	Kind       string
	Visibility string
	Doc        string // the shared document an editor update belongs to; "" otherwise
	DocVersion int64  // the document's version after this update; 0 otherwise
	// PublicSeq counts the room's events visible to everyone, from 1; 0
	// for an interviewer-only event. The candidate's stream is numbered
	// by it, so its ids have no gaps that would count the others.
	PublicSeq int64
	Payload   json.RawMessage
}

// MaxRoomEventsRead bounds one read of a log, so a stream catching up on
// a long room reads it in pages rather than all at once.
const MaxRoomEventsRead = 1000

// CreateRoom stores a new room and its first event (seq 1).
func (s *Store) CreateRoom(ctx context.Context, r Room, first NewRoomEvent) (Room, RoomEvent, error) {
	if err := checkNewEvent(first); err != nil {
		return Room{}, RoomEvent{}, err
	}
	if r.Language == "" {
		r.Language = LangGo
	}
	if !ValidLanguage(r.Language) {
		return Room{}, RoomEvent{}, fmt.Errorf("storage: create room: unknown language %q", r.Language)
	}
	r.LastSeq = 1
	r.EndedAt = time.Time{}
	ev := RoomEvent{RoomID: r.ID, Seq: 1, At: r.CreatedAt, Actor: first.Actor, Kind: first.Kind,
		Visibility: first.Visibility, Payload: first.Payload}
	if ev.Visibility == VisibleToEveryone {
		ev.PublicSeq = 1
	}
	err := s.inTx(ctx, func(tx *txn) error {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO rooms (id, source_kind, source_slug, language, interviewer_hash, candidate_hash, created_at, expires_at, last_seq, last_public_seq)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`,
			r.ID, r.SourceKind, r.SourceSlug, r.Language, r.InterviewerHash, r.CandidateHash, millis(r.CreatedAt), millis(r.ExpiresAt), ev.PublicSeq); err != nil {
			return fmt.Errorf("storage: create room: %w", err)
		}
		return insertRoomEvent(ctx, tx, ev)
	})
	if err != nil {
		return Room{}, RoomEvent{}, err
	}
	return r, ev, nil
}

// Room returns the room with id, or ErrNotFound.
func (s *Store) Room(ctx context.Context, id string) (Room, error) {
	var r Room
	var created, expires int64
	var ended sql.NullInt64
	err := s.db.QueryRowContext(ctx,
		`SELECT id, source_kind, source_slug, language, interviewer_hash, candidate_hash, created_at, expires_at, ended_at, last_seq
		 FROM rooms WHERE id = ?`, id).
		Scan(&r.ID, &r.SourceKind, &r.SourceSlug, &r.Language, &r.InterviewerHash, &r.CandidateHash, &created, &expires, &ended, &r.LastSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return Room{}, ErrNotFound
	}
	if err != nil {
		return Room{}, fmt.Errorf("storage: room %s: %w", id, err)
	}
	r.CreatedAt, r.ExpiresAt = fromMillis(created), fromMillis(expires)
	if ended.Valid {
		r.EndedAt = fromMillis(ended.Int64)
	}
	return r, nil
}

// AppendRoomEvents appends evs to the room's log at time at, in order, and
// returns them with their seqs. It fails with ErrRoomClosed when the room
// has ended or expired by at, ErrNotFound when there is no such room.
func (s *Store) AppendRoomEvents(ctx context.Context, roomID string, at time.Time, evs ...NewRoomEvent) ([]RoomEvent, error) {
	return s.appendRoomEvents(ctx, roomID, at, false, evs)
}

// EndRoom appends ev, the room's last event, and marks the room ended at
// at, in one step: nothing can be appended after it. A room already ended
// or expired gives ErrRoomClosed.
func (s *Store) EndRoom(ctx context.Context, roomID string, at time.Time, ev NewRoomEvent) (RoomEvent, error) {
	out, err := s.appendRoomEvents(ctx, roomID, at, true, []NewRoomEvent{ev})
	if err != nil {
		return RoomEvent{}, err
	}
	return out[0], nil
}

func (s *Store) appendRoomEvents(ctx context.Context, roomID string, at time.Time, end bool, evs []NewRoomEvent) ([]RoomEvent, error) {
	if len(evs) == 0 {
		return nil, nil
	}
	for _, ev := range evs {
		if err := checkNewEvent(ev); err != nil {
			return nil, err
		}
	}
	public := 0
	for _, ev := range evs {
		if ev.Visibility == VisibleToEveryone {
			public++
		}
	}
	var out []RoomEvent
	err := s.inTx(ctx, func(tx *txn) error {
		last, lastPublic, err := claimSeqs(ctx, tx, roomID, at, len(evs), public, end)
		if err != nil {
			return err
		}
		out = make([]RoomEvent, len(evs))
		nextPublic := lastPublic - int64(public) + 1
		for i, ev := range evs {
			out[i] = RoomEvent{RoomID: roomID, Seq: last - int64(len(evs)-1-i), At: at, Actor: ev.Actor, Kind: ev.Kind,
				Visibility: ev.Visibility, Payload: ev.Payload}
			if ev.Visibility == VisibleToEveryone {
				out[i].PublicSeq = nextPublic
				nextPublic++
			}
			if err := insertRoomEvent(ctx, tx, out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AppendDocUpdates appends shared-editor updates to document doc of the
// room, one event each (visible to everyone), if the document is at version
// base: the first update makes it base+1. When another writer got there
// first the result is ErrVersionConflict and nothing is stored.
func (s *Store) AppendDocUpdates(ctx context.Context, roomID, doc string, base int64, at time.Time, actor, kind string, updates []json.RawMessage) ([]RoomEvent, error) {
	if len(updates) == 0 {
		return nil, nil
	}
	if doc == "" {
		return nil, errors.New("storage: append document updates: the document has no name")
	}
	var out []RoomEvent
	err := s.inTx(ctx, func(tx *txn) error {
		last, lastPublic, err := claimSeqs(ctx, tx, roomID, at, len(updates), len(updates), false)
		if err != nil {
			return err
		}
		// Read after claimSeqs: its row lock is held until commit, so no
		// other append to this room can move the version between this
		// read and the inserts, even under READ COMMITTED.
		v, err := docVersion(ctx, tx, roomID, doc)
		if err != nil {
			return err
		}
		if v != base {
			return ErrVersionConflict
		}
		out = make([]RoomEvent, len(updates))
		for i, u := range updates {
			out[i] = RoomEvent{RoomID: roomID, Seq: last - int64(len(updates)-1-i), At: at, Actor: actor, Kind: kind,
				Visibility: VisibleToEveryone, Doc: doc, DocVersion: base + int64(i) + 1, Payload: u,
				PublicSeq: lastPublic - int64(len(updates)-1-i)}
			if err := checkNewEvent(NewRoomEvent{Actor: actor, Kind: kind, Visibility: VisibleToEveryone, Payload: u}); err != nil {
				return err
			}
			if err := insertRoomEvent(ctx, tx, out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DocVersion is the version of the room's document doc: how many updates
// it has had.
func (s *Store) DocVersion(ctx context.Context, roomID, doc string) (int64, error) {
	return docVersion(ctx, s.db, roomID, doc)
}

func docVersion(ctx context.Context, q queryer, roomID, doc string) (int64, error) {
	var v int64
	if err := q.QueryRowContext(ctx,
		`SELECT coalesce(max(doc_version), 0) FROM room_events WHERE room_id = ? AND doc = ?`, roomID, doc).Scan(&v); err != nil {
		return 0, fmt.Errorf("storage: version of document %s in room %s: %w", doc, roomID, err)
	}
	return v, nil
}

// DocUpdatesSince returns the updates of document doc after version v, in
// version order, at most limit of them (MaxRoomEventsRead when limit is
// out of 1..MaxRoomEventsRead).
func (s *Store) DocUpdatesSince(ctx context.Context, roomID, doc string, v int64, limit int) ([]RoomEvent, error) {
	return s.queryRoomEvents(ctx, limit, `WHERE room_id = ? AND doc = ? AND doc_version > ? ORDER BY doc_version`, roomID, doc, v)
}

// RoomEvents returns the room's events after seq after, in order, at most
// limit of them (as DocUpdatesSince): every event, interviewer-only ones
// included, except those of the kinds in skip (a view that has no use for
// a room's thousands of keystrokes leaves them in the database). Only
// what serves the interviewer may call it.
func (s *Store) RoomEvents(ctx context.Context, roomID string, after int64, limit int, skip ...string) ([]RoomEvent, error) {
	where, args := skipKinds(`WHERE room_id = ? AND seq > ?`, []any{roomID, after}, skip)
	return s.queryRoomEvents(ctx, limit, where+` ORDER BY seq`, args...)
}

// PublicRoomEvents is RoomEvents without the events only the interviewer
// may see, after the public seq after (RoomEvent.PublicSeq): the filter is
// in the query, so what serves the candidate never holds an
// interviewer-only event at all.
func (s *Store) PublicRoomEvents(ctx context.Context, roomID string, after int64, limit int, skip ...string) ([]RoomEvent, error) {
	where, args := skipKinds(`WHERE room_id = ? AND public_seq > ? AND visibility = '`+VisibleToEveryone+`'`, []any{roomID, after}, skip)
	return s.queryRoomEvents(ctx, limit, where+` ORDER BY public_seq`, args...)
}

func skipKinds(where string, args []any, skip []string) (string, []any) {
	if len(skip) == 0 {
		return where, args
	}
	where += ` AND kind NOT IN (?` + strings.Repeat(`, ?`, len(skip)-1) + `)`
	for _, k := range skip {
		args = append(args, k)
	}
	return where, args
}

func (s *Store) queryRoomEvents(ctx context.Context, limit int, where string, args ...any) ([]RoomEvent, error) {
	if limit <= 0 || limit > MaxRoomEventsRead {
		limit = MaxRoomEventsRead
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT room_id, seq, at, actor, kind, visibility, doc, doc_version, public_seq, payload FROM room_events `+where+` LIMIT ?`,
		append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("storage: read room events: %w", err)
	}
	defer rows.Close()
	var out []RoomEvent
	for rows.Next() {
		var ev RoomEvent
		var at int64
		var doc sql.NullString
		var version, public sql.NullInt64
		var payload string
		if err := rows.Scan(&ev.RoomID, &ev.Seq, &at, &ev.Actor, &ev.Kind, &ev.Visibility, &doc, &version, &public, &payload); err != nil {
			return nil, fmt.Errorf("storage: read room events: %w", err)
		}
		ev.At, ev.Doc, ev.DocVersion, ev.PublicSeq, ev.Payload = fromMillis(at), doc.String, version.Int64, public.Int64, json.RawMessage(payload)
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: read room events: %w", err)
	}
	return out, nil
}

// claimSeqs reserves n seqs in the room, public of them public seqs too,
// and returns the last of each. The conditional UPDATE is the whole
// concurrency story: it locks the room's row until commit (so appends to
// one room are serialised on every database, and commit order is seq
// order), and it matches no row once the room has ended or expired. end
// marks the room ended in the same step.
func claimSeqs(ctx context.Context, tx *txn, roomID string, at time.Time, n, public int, end bool) (last, lastPublic int64, err error) {
	set := `last_seq = last_seq + ?, last_public_seq = last_public_seq + ?`
	args := []any{n, public}
	if end {
		set += `, ended_at = ?`
		args = append(args, millis(at))
	}
	args = append(args, roomID, millis(at))
	err = tx.QueryRowContext(ctx,
		`UPDATE rooms SET `+set+` WHERE id = ? AND ended_at IS NULL AND expires_at > ? RETURNING last_seq, last_public_seq`, args...).
		Scan(&last, &lastPublic)
	if errors.Is(err, sql.ErrNoRows) {
		var one int
		switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM rooms WHERE id = ?`, roomID).Scan(&one); {
		case errors.Is(err, sql.ErrNoRows):
			return 0, 0, ErrNotFound
		case err != nil:
			return 0, 0, fmt.Errorf("storage: append to room %s: %w", roomID, err)
		}
		return 0, 0, ErrRoomClosed
	}
	if err != nil {
		return 0, 0, fmt.Errorf("storage: append to room %s: %w", roomID, err)
	}
	return last, lastPublic, nil
}

func insertRoomEvent(ctx context.Context, tx *txn, ev RoomEvent) error {
	var doc, version, public any
	if ev.Doc != "" {
		doc, version = ev.Doc, ev.DocVersion
	}
	if ev.PublicSeq > 0 {
		public = ev.PublicSeq
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO room_events (room_id, seq, at, actor, kind, visibility, doc, doc_version, public_seq, payload)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		ev.RoomID, ev.Seq, millis(ev.At), ev.Actor, ev.Kind, ev.Visibility, doc, version, public, string(ev.Payload)); err != nil {
		return fmt.Errorf("storage: append %s event %d to room %s: %w", ev.Kind, ev.Seq, ev.RoomID, err)
	}
	return nil
}

// checkNewEvent refuses what the schema would, with a message that says
// which field was wrong instead of a CHECK constraint's name.
func checkNewEvent(ev NewRoomEvent) error {
	switch {
	case ev.Actor != ActorInterviewer && ev.Actor != ActorCandidate && ev.Actor != ActorSystem:
		return fmt.Errorf("storage: room event %q: actor %q is not interviewer, candidate or system", ev.Kind, ev.Actor)
	case ev.Visibility != VisibleToEveryone && ev.Visibility != VisibleToInterviewer:
		return fmt.Errorf("storage: room event %q: visibility %q is not everyone or interviewer", ev.Kind, ev.Visibility)
	case strings.TrimSpace(ev.Kind) == "":
		return errors.New("storage: room event has no kind")
	case !json.Valid(ev.Payload):
		return fmt.Errorf("storage: room event %q: payload is not JSON", ev.Kind)
	}
	return nil
}

// DeleteRoomsExpiredBy deletes the rooms that expired at or before cutoff,
// at most limit of them (the oldest first), each with its whole event log,
// and returns their ids. Each room goes in its own transaction, so a
// sweep holds the write lock for one room's log at a time, and by a
// conditional DELETE (expires_at is checked again in the statement), so
// several instances sweeping one database at once delete each room once
// and never one that is still kept: the losers' statements match no row.
// The log goes with the room through the foreign key's ON DELETE CASCADE.
func (s *Store) DeleteRoomsExpiredBy(ctx context.Context, cutoff time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT id FROM rooms WHERE expires_at <= ? ORDER BY expires_at, id LIMIT ?`, millis(cutoff), limit)
	if err != nil {
		return nil, fmt.Errorf("storage: find expired rooms: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("storage: find expired rooms: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: find expired rooms: %w", err)
	}
	var deleted []string
	for _, id := range ids {
		var n int64
		err := s.inTx(ctx, func(tx *txn) error {
			res, err := tx.ExecContext(ctx, `DELETE FROM rooms WHERE id = ? AND expires_at <= ?`, id, millis(cutoff))
			if err != nil {
				return fmt.Errorf("storage: delete room %s: %w", id, err)
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return deleted, err
		}
		if n == 1 {
			deleted = append(deleted, id)
		}
	}
	return deleted, nil
}
