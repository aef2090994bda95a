// Package collab is the server side of the shared editor: the authority
// that orders the changes of several @codemirror/collab editors on one
// document, and CodeMirror's change sets applied in Go.
//
// The protocol is @codemirror/collab's. A document has versions: version 0
// is its initial text (Options.Initial), version v that text with its
// first v updates applied. An editor pushes the updates it made on the
// version it last saw; the authority accepts them only if that is the
// latest version and each applies, in order, to the latest text. Otherwise
// the push is a conflict: the editor pulls the updates since its version,
// @codemirror/collab rebases its own over them, and it pushes again.
//
// The pieces, and who calls what:
//
//   - Update{ClientID, Changes, Selection} is one update as the editor
//     makes it; its JSON is {"clientID": "...", "changes":
//     ChangeSet.toJSON(), "selection": {"anchor", "head", "name",
//     "colour"}}, the selection (optional) being where the client's
//     cursor was after the update: the last update of a push carries it,
//     so a keystroke and its cursor are one write.
//   - ApplyChanges(doc, changes) applies a change set's JSON with
//     CodeMirror's semantics: positions and lengths count UTF-16 code units,
//     and the set must cover the document exactly. ParseChanges and
//     Changes.Apply are the same in two steps. testdata/changes.json holds
//     cases CodeMirror itself applied (web/editor/scripts/collab-cases.mjs).
//   - Store is the history: Append(ctx, doc, base, ups) stores versions
//     base+1.. all or none, or returns ErrConflict; Since(ctx, doc, v)
//     returns the updates after v. The rooms implement it over their event
//     log; MemoryStore is the in-memory twin, and collabtest.TestStore the
//     conformance tests every Store must pass.
//   - Authority: Push(ctx, doc, base, ups) returns a PushResult (accepted
//     with the new Version, Conflict, or Rejected with the reason: the
//     client's outcomes are data, the error is for a store that broke);
//     Pull(ctx, doc, since); Text(ctx, doc) the latest text and version;
//     Forget(doc) drops a cached document. Options.Advanced is told of
//     every accepted push, in version order, to publish it.
//   - TextAt(initial, ups, v) is the text at one version, for replay;
//     Replay(initial, ups, visit) walks every version in one pass.
//
// The Authority caches each document's latest text but the Store is the
// truth: a cache behind the store catches up on a push that conflicts or
// on Text, so several server processes may share one store.
//
// The editor's side is in web/editor (FaultlineEditor.mount's collab
// option).
package collab
