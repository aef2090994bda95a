// The shared editor: @codemirror/collab kept in step with the server
// (internal/collab's Authority) through a transport the page gives, and the
// other participants' cursors and selections drawn in the text.
//
// The server orders the changes. This editor pushes the updates it made on
// the version it last saw; the server accepts them or says "conflict", and
// then the editor pulls what it missed (collab rebases its own updates over
// it) and pushes again. Updates from the others arrive through
// transport.onUpdates, in order; a gap (an update whose base this editor has
// not reached) is filled by a pull.

import {
  collab,
  sendableUpdates,
  receiveUpdates,
  getSyncedVersion,
} from "@codemirror/collab";
import { ChangeSet, StateEffect, StateField, Transaction } from "@codemirror/state";
import { EditorView, Decoration, WidgetType } from "@codemirror/view";

// maxPushUpdates is internal/collab.MaxPushUpdates: after a long
// disconnection the editor may hold more updates than the server takes in
// one push, so it sends them in batches (collab confirms a prefix).
export const maxPushUpdates = 100;

// historyKept is how many confirmed updates the editor remembers, to move a
// peer's cursor reported at an older version up to the current text. A peer
// reports within a fraction of a second, so a few hundred versions is ample;
// an older report is placed as it is, clamped to the text.
const historyKept = 500;

// An edit's selection rides with its push (on the batch's last update),
// so typing sends no cursor reports of its own. A selection moved without
// an edit (a click, the arrow keys) is reported at most once per
// cursorEvery ms, the first at once and the last always: internal/rooms
// refuses a participant's reports coming faster than four a second.
const cursorEvery = 250;

// retryDelay is the wait after a push or pull that failed (the network),
// doubling up to retryMax.
const retryDelay = 500;
const retryMax = 8000;

// palette is the number of peer colours (cm-faultline-peer-0 .. -3).
export const palette = 4;

// A peer is another participant's cursor: {clientID, name, colour, anchor,
// head}, positions in this editor's current text.
const setPeer = StateEffect.define();
const removePeer = StateEffect.define();

const peersField = StateField.define({
  create: () => [],
  update(peers, tr) {
    if (tr.docChanged) {
      peers = peers.map((p) => ({
        ...p,
        anchor: tr.changes.mapPos(p.anchor),
        head: tr.changes.mapPos(p.head),
      }));
    }
    for (const e of tr.effects) {
      if (e.is(setPeer)) {
        peers = peers.filter((p) => p.clientID !== e.value.clientID).concat([e.value]);
      } else if (e.is(removePeer)) {
        peers = peers.filter((p) => p.clientID !== e.value);
      }
    }
    return peers;
  },
  provide: (field) => EditorView.decorations.from(field, peerDecorations),
});

// colourIndex turns a report's colour into one of the palette's classes.
function colourIndex(c) {
  const n = Math.floor(Number(c));
  return Number.isFinite(n) ? ((n % palette) + palette) % palette : 0;
}

class PeerCaret extends WidgetType {
  constructor(name, colour) {
    super();
    this.name = name;
    this.colour = colour;
  }
  eq(other) {
    return other.name === this.name && other.colour === this.colour;
  }
  toDOM() {
    const caret = document.createElement("span");
    caret.className = "cm-faultline-peer-caret cm-faultline-peer-" + this.colour;
    // The caret is an image of where the peer is; its name is what a
    // screen reader says, and what a pointer's tooltip shows.
    caret.setAttribute("role", "img");
    caret.setAttribute("aria-label", this.name + "'s cursor");
    caret.title = this.name;
    const label = document.createElement("span");
    label.className = "cm-faultline-peer-name";
    label.setAttribute("aria-hidden", "true");
    label.textContent = this.name;
    caret.appendChild(label);
    return caret;
  }
  ignoreEvent() {
    return false;
  }
}

function peerDecorations(peers) {
  const ranges = [];
  for (const p of peers) {
    const from = Math.min(p.anchor, p.head);
    const to = Math.max(p.anchor, p.head);
    if (from < to) {
      ranges.push(
        Decoration.mark({
          class: "cm-faultline-peer-selection cm-faultline-peer-" + p.colour,
          attributes: { title: p.name + "'s selection" },
        }).range(from, to),
      );
    }
    ranges.push(
      Decoration.widget({ widget: new PeerCaret(p.name, p.colour), side: 1 }).range(p.head),
    );
  }
  return Decoration.set(ranges, true);
}

// Peer colours. Contrast (WCAG ratio), light theme on #fdfdfc / the active
// line #eef1f5; dark on #15181c / #1e232a: each caret 4.8 or more (3:1 is
// the rule for a graphic); the name label's text on its caret colour 5.5
// or more; every syntax colour of theme.js on a selection tint 4.9 or more
// (light) and 4.85 or more (dark).
const peerColours = [
  // orange, green, purple, blue: [light caret, light tint, dark caret, dark tint]
  ["#b34700", "#fbe3d0", "#ffa657", "#4a2a10"],
  ["#1d6b35", "#d5eedb", "#6bd17a", "#17381f"],
  ["#6b35b8", "#e8ddf7", "#d6b3ff", "#35264f"],
  ["#0b5cad", "#d6e6f7", "#79b8ff", "#1b3656"],
];

function peerRules(dark) {
  const rules = {};
  peerColours.forEach(([lc, lt, dc, dt], i) => {
    const caret = dark ? dc : lc;
    rules[".cm-faultline-peer-caret.cm-faultline-peer-" + i] = { borderLeftColor: caret };
    rules[".cm-faultline-peer-" + i + " .cm-faultline-peer-name"] = {
      backgroundColor: caret,
      color: dark ? "#0b1220" : "#ffffff",
    };
    rules[".cm-faultline-peer-selection.cm-faultline-peer-" + i] = { backgroundColor: dark ? dt : lt };
  });
  return rules;
}

const peerTheme = EditorView.theme({
  ".cm-faultline-peer-caret": {
    position: "relative",
    display: "inline-block",
    width: "0",
    height: "1.2em",
    verticalAlign: "text-bottom",
    borderLeft: "2px solid",
    marginLeft: "-1px",
    marginRight: "-1px",
  },
  ".cm-faultline-peer-name": {
    display: "none",
    position: "absolute",
    bottom: "100%",
    left: "-2px",
    padding: "0 .3em",
    borderRadius: ".2em",
    font: "600 .75rem/1.4 system-ui, sans-serif",
    whiteSpace: "nowrap",
    zIndex: "10",
    pointerEvents: "none",
  },
  ".cm-faultline-peer-caret:hover .cm-faultline-peer-name": { display: "block" },
  ...peerRules(false),
  "@media (prefers-color-scheme: dark)": peerRules(true),
});

/**
 * collabExtensions returns the editor extensions of a shared editor.
 *
 * @param {{startVersion: number, clientID: string}} cfg
 */
export function collabExtensions(cfg) {
  return [
    collab({ startVersion: cfg.startVersion, clientID: cfg.clientID }),
    peersField,
    peerTheme,
  ];
}

/**
 * startCollab keeps view in step with the server through cfg.transport:
 *   push(version, updates) -> Promise<{ok: true} | {conflict: true} | {rejected: why}>
 *   pull(since)            -> Promise<updates after version since>
 *   onUpdates(callback)    the page calls callback(updates, version) with
 *                          updates as they arrive, version being the
 *                          document's version after the last of them
 * Each update is {clientID, changes} with changes as ChangeSet JSON.
 *
 * cfg.onSelection(report), when given, makes the local selection shared:
 * each push carries it (on its last update, as {anchor, head, name,
 * colour}: positions in the text that update leaves), and a selection
 * moved without an edit is handed to onSelection, at most once per
 * cursorEvery ms and the last always, as {clientID, name, colour, version,
 * anchor, head}: positions in the text at that version of the server's
 * document, which is what any peer can place (see setPeer). When
 * onSelection returns a promise that rejects, the report is sent again a
 * little later. The others' updates that carry a selection place their
 * cursors (transport.onUpdates and pulls alike). cfg.onError(why), when given, hears that
 * the server rejected this editor's updates for good: the editor stops
 * pushing (it still receives), and the page should offer a reload.
 *
 * Returns {update(viewUpdate), setPeer(report), removePeer(clientID),
 * version(), pull(), destroy()}; mount wires update to the view.
 */
export function startCollab(view, cfg) {
  const transport = cfg.transport;
  const clientID = cfg.clientID;
  const me = { clientID, name: String(cfg.name || "You"), colour: colourIndex(cfg.colour) };
  let destroyed = false;
  let stalled = ""; // why the server refused this editor's updates for good
  let pushing = false;
  let pulling = null; // the pull in flight
  let pullAgain = false;
  let retry = retryDelay;
  const sharing = typeof cfg.onSelection === "function";
  let reportTimer = 0;
  let lastReportAt = -Infinity; // when the last cursor-only report went
  let sent = null; // {version, anchor, head}: the selection the others last heard of
  let refused = 0; // cursor reports refused in a row
  const recent = []; // {version, changes}: confirmed updates, oldest first
  const waiting = new Map(); // peer reports ahead of this editor's version
  const placedAt = new Map(); // clientID -> the version of its cursor drawn

  // accept takes updates that follow version base, skipping those this
  // editor already has; a gap is filled by a pull.
  function accept(base, updates) {
    if (destroyed || !updates || updates.length === 0) return;
    const synced = getSyncedVersion(view.state);
    if (base > synced) {
      pull();
      return;
    }
    const fresh = updates.slice(synced - base);
    if (fresh.length === 0) return;
    const parsed = fresh.map((u) => ({
      clientID: String(u.clientID),
      changes: ChangeSet.fromJSON(u.changes),
    }));
    parsed.forEach((u, i) => recent.push({ version: synced + i + 1, changes: u.changes }));
    if (recent.length > historyKept) recent.splice(0, recent.length - historyKept);
    view.dispatch(receiveUpdates(view.state, parsed));
    // The others' cursors as their updates left them: the latest of each.
    const cursors = new Map();
    fresh.forEach((u, i) => {
      const sel = u.selection;
      if (sel && typeof sel === "object" && String(u.clientID) !== clientID) {
        cursors.set(String(u.clientID), {
          clientID: String(u.clientID),
          name: sel.name,
          colour: sel.colour,
          version: synced + i + 1,
          anchor: sel.anchor,
          head: sel.head,
        });
      }
    });
    for (const report of cursors.values()) {
      // A cursor report at the same version or later was made after the
      // update: it wins (it is placed below, or waits for its version).
      const later = waiting.get(report.clientID);
      if (later && later.version >= report.version) continue;
      waiting.delete(report.clientID);
      setPeerReport(report);
    }
    for (const [id, report] of waiting) {
      if (report.version <= getSyncedVersion(view.state)) {
        waiting.delete(id);
        setPeerReport(report);
      }
    }
    schedulePush();
  }

  function pull() {
    if (destroyed) return Promise.resolve();
    if (pulling) {
      pullAgain = true;
      return pulling;
    }
    const since = getSyncedVersion(view.state);
    pulling = Promise.resolve()
      .then(() => transport.pull(since))
      .then(
        (updates) => {
          retry = retryDelay;
          accept(since, updates);
        },
        (err) => {
          console.warn("FaultlineEditor collab: pull failed, retrying:", err);
          return wait().then(() => (pullAgain = true));
        },
      )
      .finally(() => {
        pulling = null;
        if (pullAgain && !destroyed) {
          pullAgain = false;
          pull();
        }
      });
    return pulling;
  }

  function wait() {
    const d = retry;
    retry = Math.min(retry * 2, retryMax);
    return new Promise((resolve) => setTimeout(resolve, d));
  }

  function schedulePush() {
    if (!pushing && !destroyed && !stalled && sendableUpdates(view.state).length > 0) {
      // A microtask, so that one burst of transactions goes in one push.
      Promise.resolve().then(push);
    }
  }

  async function push() {
    if (pushing || destroyed || stalled) return;
    const pending = sendableUpdates(view.state);
    if (pending.length === 0) return;
    pushing = true;
    const base = getSyncedVersion(view.state);
    const batch = pending.slice(0, maxPushUpdates).map((u) => ({
      clientID: u.clientID,
      changes: u.changes.toJSON(),
    }));
    let carried = null;
    if (sharing) {
      // The selection as it is now, in the text the batch leaves: the
      // server stores it with the batch's last update.
      const sel = view.state.selection.main;
      carried = {
        version: base + batch.length,
        anchor: toVersionOf(sel.anchor, batch.length),
        head: toVersionOf(sel.head, batch.length),
      };
      batch[batch.length - 1].selection = { anchor: carried.anchor, head: carried.head, name: me.name, colour: me.colour };
    }
    try {
      const answer = await transport.push(base, batch);
      retry = retryDelay;
      if (answer && answer.ok) {
        if (carried) sent = carried;
        // The server stored exactly this batch as versions base+1..: it
        // confirms them as if they had come back from it (their clientID
        // is this editor's), unless the stream was quicker.
        accept(base, batch);
      } else if (answer && answer.conflict) {
        await pull();
      } else if (answer && answer.rejected) {
        // The server will never take these updates (the document would
        // pass its size limit, say): pushing them again would only repeat
        // the refusal. The editor keeps receiving the others' changes; the
        // page tells the participant and reloads when they choose.
        stalled = String(answer.rejected);
        if (typeof cfg.onError === "function") cfg.onError(stalled);
      } else {
        throw new Error("unexpected answer to a push: " + JSON.stringify(answer));
      }
    } catch (err) {
      console.warn("FaultlineEditor collab: push failed, retrying:", err);
      await wait();
      // What the server has may now differ: pull before pushing again.
      await pull();
    } finally {
      pushing = false;
    }
    schedulePush();
    // Moved since the push was made, with nothing more to push: a report.
    if (sendableUpdates(view.state).length === 0) scheduleReport();
  }

  // toVersionOf maps a position of the current text back to the text
  // after the first k unconfirmed updates, through the inverses of the
  // others.
  function toVersionOf(pos, k) {
    const pending = sendableUpdates(view.state);
    for (let i = pending.length - 1; i >= k; i--) {
      pos = pending[i].changes.invertedDesc.mapPos(pos, -1);
    }
    return pos;
  }

  // fromVersion maps a position of version v's text to the current text.
  function fromVersion(pos, v) {
    for (const r of recent) if (r.version > v) pos = r.changes.mapPos(pos);
    for (const u of sendableUpdates(view.state)) pos = u.changes.mapPos(pos);
    return Math.max(0, Math.min(pos, view.state.doc.length));
  }

  // scheduleReport sends the selection once the last report is
  // cursorEvery old: at once after a quiet spell, else at the end of it.
  function scheduleReport() {
    if (destroyed || !sharing || reportTimer) return;
    const wait = Math.max(0, lastReportAt + cursorEvery - Date.now());
    reportTimer = setTimeout(reportSelection, wait);
  }

  function reportSelection() {
    reportTimer = 0;
    // With updates to push, the push carries the selection.
    if (destroyed || stalled || sendableUpdates(view.state).length > 0) return;
    const sel = view.state.selection.main;
    const version = getSyncedVersion(view.state);
    // The others map what they last heard through the updates since, so
    // a selection that only moved with the text needs no report.
    if (sent && fromVersion(sent.anchor, sent.version) === sel.anchor && fromVersion(sent.head, sent.version) === sel.head) return;
    const report = { version, anchor: sel.anchor, head: sel.head };
    sent = report;
    lastReportAt = Date.now();
    Promise.resolve()
      .then(() => cfg.onSelection({ ...me, ...report }))
      .then(
        () => (refused = 0),
        () => {
          // Refused or lost: unless a newer one went, send it again after
          // a pause, a few times at most (the room may have closed).
          if (sent === report) sent = null;
          lastReportAt = Date.now() + cursorEvery * refused;
          if (++refused <= 3) scheduleReport();
        },
      );
  }

  function setPeerReport(report) {
    if (destroyed || !report || report.clientID === clientID) return;
    const version = Math.floor(Number(report.version)) || 0;
    if (version > getSyncedVersion(view.state)) {
      // The peer has seen updates this editor has not: place the cursor
      // once they arrive.
      waiting.set(report.clientID, { ...report, version });
      pull();
      return;
    }
    // A report older than the one placed (a pull's update overtook the
    // stream) would move the cursor back.
    const id = String(report.clientID);
    if ((placedAt.get(id) ?? -1) > version) return;
    placedAt.set(id, version);
    const anchor = fromVersion(Math.max(0, Math.floor(Number(report.anchor)) || 0), version);
    const head = fromVersion(Math.max(0, Math.floor(Number(report.head)) || 0), version);
    view.dispatch({
      effects: setPeer.of({
        clientID: String(report.clientID),
        name: String(report.name || "Someone"),
        colour: colourIndex(report.colour),
        anchor,
        head,
      }),
    });
  }

  transport.onUpdates((updates, version) => {
    const n = updates ? updates.length : 0;
    accept(Number(version) - n, updates);
  });

  return {
    // update is the view's update listener: push local changes (with the
    // selection), and report a selection moved without one.
    update(u) {
      if (destroyed) return;
      if (u.docChanged) schedulePush();
      if (!sharing) return;
      const moved = u.transactions.some((tr) => !tr.annotation(Transaction.remote) && tr.selection && !tr.docChanged);
      if (moved) scheduleReport();
    },
    setPeer: setPeerReport,
    removePeer(id) {
      waiting.delete(id);
      placedAt.delete(String(id));
      if (!destroyed) view.dispatch({ effects: removePeer.of(String(id)) });
    },
    peers: () => view.state.field(peersField).map((p) => ({ ...p })),
    version: () => getSyncedVersion(view.state),
    pending: () => sendableUpdates(view.state).length,
    stalled: () => stalled,
    pull,
    destroy() {
      destroyed = true;
      clearTimeout(reportTimer);
    },
  };
}
