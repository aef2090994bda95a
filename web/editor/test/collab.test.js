// The shared editor's sync and peer cursors (src/collab.js), on editor
// states without a DOM: two or three editors and an in-memory authority
// that behaves as internal/collab's (accept on the latest version, else
// conflict), with the network's delays drawn at random.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EditorState, EditorSelection, Transaction, ChangeSet, Text } from "@codemirror/state";
import { collabExtensions, startCollab } from "../src/collab.js";

function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Server {
  constructor(text, random) {
    this.doc = Text.of(text.split("\n"));
    this.updates = [];
    this.listeners = [];
    this.random = random;
  }
  delay() {
    return sleep(Math.floor(this.random() * 4));
  }
  transport() {
    let listener = null;
    let delivered = Promise.resolve();
    const t = {
      push: async (version, ups) => {
        await this.delay();
        if (version !== this.updates.length) return { conflict: true };
        for (const u of ups) {
          const cs = ChangeSet.fromJSON(u.changes);
          this.doc = cs.apply(this.doc); // throws on a wrong length, as the Go authority refuses
          this.updates.push(u);
        }
        const at = this.updates.length;
        for (const l of this.listeners) l(ups, at);
        await this.delay();
        return { ok: true };
      },
      pull: async (since) => {
        await this.delay();
        return this.updates.slice(since);
      },
      onUpdates: (cb) => {
        listener = cb;
      },
    };
    // The stream: in order, each event after a random delay.
    this.listeners.push((ups, at) => {
      delivered = delivered.then(() => this.delay()).then(() => listener && listener(JSON.parse(JSON.stringify(ups)), at));
    });
    return t;
  }
}

// fakeView is the part of EditorView startCollab uses.
function fakeView(doc, version, clientID, transport, extra = {}) {
  const view = {
    state: EditorState.create({ doc, extensions: collabExtensions({ startVersion: version, clientID }) }),
    dispatch(x) {
      const tr = x instanceof Transaction ? x : view.state.update(x);
      view.state = tr.state;
      if (view.sync) view.sync.update({ state: tr.state, docChanged: tr.docChanged, transactions: [tr] });
    },
  };
  view.sync = startCollab(view, { clientID, name: clientID, colour: 1, transport, ...extra });
  return view;
}

async function settle(server, views) {
  for (let i = 0; i < 400; i++) {
    await sleep(5);
    const done = views.every(
      (v) => v.sync.pending() === 0 && v.sync.version() === server.updates.length,
    );
    if (done) return;
  }
  assert.fail(
    "editors did not settle: " +
      views.map((v) => `v${v.sync.version()} pending ${v.sync.pending()}`).join(", ") +
      `; server at ${server.updates.length}`,
  );
}

test("editors typing at once converge on the server's text", async () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const random = rng(seed);
    const start = "package main\n\n😀 func f() {}\n";
    const server = new Server(start, random);
    const views = ["a", "b", "c"].map((id) => fakeView(start, 0, id, server.transport()));
    const alphabet = ["x", "y", "\n", "é", "𝔘", ""];
    for (let step = 0; step < 60; step++) {
      const v = views[Math.floor(random() * views.length)];
      const len = v.state.doc.length;
      let from = Math.floor(random() * (len + 1));
      let to = Math.min(len, from + Math.floor(random() * 3));
      // Keep astral characters whole, as the editor's own commands do.
      const s = v.state.doc.toString();
      const inside = (p) => p > 0 && p < s.length && s.charCodeAt(p) >= 0xdc00 && s.charCodeAt(p) <= 0xdfff;
      if (inside(from)) from--;
      if (inside(to)) to++;
      const insert = alphabet[Math.floor(random() * alphabet.length)];
      v.dispatch({ changes: { from, to, insert } });
      if (random() < 0.3) await sleep(Math.floor(random() * 3));
    }
    await settle(server, views);
    const want = server.doc.toString();
    for (const v of views) assert.equal(v.state.doc.toString(), want, `seed ${seed}: an editor differs from the server`);
  }
});

test("a gap in the stream is filled by a pull", async () => {
  const server = new Server("abc", rng(9));
  const t = server.transport();
  let stream = null;
  const quiet = { ...t, onUpdates: (cb) => (stream = cb) };
  const view = fakeView("abc", 0, "me", quiet);
  // Versions 1 and 2 happen while this editor hears nothing, then 3
  // arrives: it must fetch 1 and 2 first.
  const other = server.transport();
  await other.push(0, [{ clientID: "o", changes: [3, [0, "1"]] }]);
  await other.push(1, [{ clientID: "o", changes: [4, [0, "2"]] }]);
  await other.push(2, [{ clientID: "o", changes: [5, [0, "3"]] }]);
  stream([{ clientID: "o", changes: [5, [0, "3"]] }], 3);
  await settle(server, [view]);
  assert.equal(view.state.doc.toString(), "abc123");
  // A repeat of what it has is ignored.
  stream([{ clientID: "o", changes: [5, [0, "3"]] }], 3);
  await sleep(10);
  assert.equal(view.state.doc.toString(), "abc123");
});

test("a peer's cursor follows remote and local changes", async () => {
  const server = new Server("hello world", rng(3));
  const reports = [];
  const a = fakeView("hello world", 0, "a", server.transport(), { name: "Ada", colour: 2, onSelection: (r) => reports.push(r) });
  const b = fakeView("hello world", 0, "b", server.transport());

  // Ada selects "world".
  a.dispatch({ selection: EditorSelection.range(6, 11) });
  await sleep(200);
  const report = reports.at(-1);
  assert.deepEqual(
    { name: report.name, colour: report.colour, version: report.version, anchor: report.anchor, head: report.head },
    { name: "Ada", colour: 2, version: 0, anchor: 6, head: 11 },
  );

  // B has typed two characters at the start it has not pushed yet when
  // the report arrives: the selection moves right by two.
  b.sync.destroy(); // stop B pushing, to hold its change unconfirmed
  const held = fakeView("hello world", 0, "b2", { push: () => new Promise(() => {}), pull: async () => [], onUpdates() {} });
  held.dispatch({ changes: { from: 0, insert: ">>" } });
  held.sync.setPeer(report);
  let [peer] = held.sync.peers();
  assert.deepEqual([peer.name, peer.colour, peer.anchor, peer.head], ["Ada", 2, 8, 13]);
  // And it keeps following local edits before it.
  held.dispatch({ changes: { from: 0, insert: "!" } });
  [peer] = held.sync.peers();
  assert.deepEqual([peer.anchor, peer.head], [9, 14]);

  // A report made at a version this editor has not reached waits for it.
  const c = fakeView("hello world", 0, "c", { ...server.transport(), onUpdates() {} });
  c.sync.setPeer({ ...report, clientID: "ahead", version: 1 });
  assert.equal(c.sync.peers().length, 0, "placed before its version arrived");
  // An edit's cursor comes with the edit: C hears of it by a pull.
  await a.sync.pull();
  a.dispatch({ changes: { from: 0, insert: "¡" }, selection: EditorSelection.cursor(1) });
  await settle(server, [a]);
  await c.sync.pull();
  assert.equal(c.state.doc.toString(), "¡hello world");
  const ada = c.sync.peers().find((p) => p.clientID === "a");
  assert.deepEqual([ada.name, ada.colour, ada.head], ["Ada", 2, 1]);
  assert.equal(c.sync.peers().find((p) => p.clientID === "ahead").head, 11, "placed once its version came");
  assert.equal(reports.length, 1, "the edit's cursor was reported on its own too");

  // A report made before later updates moves through them.
  const d = fakeView("hello world", 0, "d", server.transport());
  await d.sync.pull();
  d.sync.setPeer({ ...report, clientID: "old" }); // made at version 0, "world" selected
  const old = d.sync.peers().find((p) => p.clientID === "old");
  assert.deepEqual([old.anchor, old.head], [7, 12]);

  // Its own reports are not drawn.
  d.sync.setPeer({ ...report, clientID: "d" });
  assert.equal(d.sync.peers().some((p) => p.clientID === "d"), false);
  d.sync.removePeer("old");
  // Ada's, from the selection on the update its pull brought.
  assert.deepEqual(d.sync.peers().map((p) => [p.clientID, p.head]), [["a", 1]]);
  for (const v of [a, b, c, d, held]) v.sync.destroy();
});

// recording wraps a transport to keep every push's updates.
function recording(t, pushes) {
  return { ...t, push: (v, ups) => (pushes.push(JSON.parse(JSON.stringify(ups))), t.push(v, ups)) };
}

test("an edit's selection rides with its push, in the text the push leaves", async () => {
  const server = new Server("abc", rng(21));
  const reports = [];
  const pushes = [];
  const a = fakeView("abc", 0, "a", recording(server.transport(), pushes), { name: "Ada", colour: 2, onSelection: (r) => reports.push(r) });
  const b = fakeView("abc", 0, "b", server.transport());
  a.dispatch({ changes: { from: 0, insert: "XY" }, selection: EditorSelection.range(1, 2) });
  await settle(server, [a, b]);
  await sleep(20);
  assert.deepEqual(pushes.at(-1).at(-1).selection, { anchor: 1, head: 2, name: "Ada", colour: 2 });
  assert.equal(reports.length, 0, "an edit sent a cursor report besides its push");
  const peer = b.sync.peers().find((p) => p.clientID === "a");
  assert.deepEqual([peer.name, peer.anchor, peer.head], ["Ada", 1, 2]);

  // More updates than one push takes: each batch's selection is where the
  // cursor is now, mapped back to the text that batch leaves.
  pushes.length = 0;
  for (let i = 0; i < 105; i++) {
    const end = a.state.doc.length;
    a.dispatch({ changes: { from: end, insert: "z" }, selection: EditorSelection.cursor(end + 1) });
  }
  await settle(server, [a, b]);
  assert.deepEqual(pushes.map((p) => p.length), [100, 5]);
  assert.deepEqual(pushes.map((p) => p.at(-1).selection.head), [105, 110]);
  assert.ok(pushes.every((p) => p.slice(0, -1).every((u) => !u.selection)), "a selection on an update that is not a push's last");
  assert.equal(b.sync.peers().find((p) => p.clientID === "a").head, 110);
  assert.equal(reports.length, 0);
  a.sync.destroy();
  b.sync.destroy();
});

test("a selection moved without an edit is reported at most every 250 ms, the last always", async () => {
  const server = new Server("abcdefghij", rng(22));
  const reports = [];
  const view = fakeView("abcdefghij", 0, "me", server.transport(), { onSelection: (r) => reports.push({ ...r, at: Date.now() }) });
  for (let i = 1; i <= 10; i++) {
    view.dispatch({ selection: EditorSelection.cursor(i) });
    await sleep(30);
  }
  await sleep(600);
  assert.equal(reports[0].head, 1, "the first move after a quiet spell is reported at once");
  assert.equal(reports.at(-1).head, 10, "the last move was not reported");
  assert.ok(reports.length <= 3, `${reports.length} reports for 300 ms of moves`);
  for (let i = 1; i < reports.length; i++) {
    assert.ok(reports[i].at - reports[i - 1].at >= 240, `reports ${reports[i].at - reports[i - 1].at} ms apart`);
  }
  // The same place again is no news; the others' changes alone are none
  // either (each peer maps a report through them).
  const n = reports.length;
  view.dispatch({ selection: EditorSelection.cursor(10) });
  await server.transport().push(0, [{ clientID: "o", changes: [[0, "xy"], 10] }]);
  await sleep(350);
  assert.equal(view.state.doc.toString(), "xyabcdefghij");
  assert.equal(view.state.selection.main.head, 12);
  view.dispatch({ selection: EditorSelection.cursor(12) });
  await sleep(350);
  assert.equal(reports.length, n, "reported a cursor the others already place");
  view.sync.destroy();
});

test("a refused cursor report is sent again", async () => {
  const server = new Server("abc", rng(23));
  const calls = [];
  let refuse = 1;
  const view = fakeView("abc", 0, "me", server.transport(), {
    onSelection: (r) => (calls.push(r.head), refuse-- > 0 ? Promise.reject(new Error("429")) : Promise.resolve()),
  });
  view.dispatch({ selection: EditorSelection.cursor(2) });
  await sleep(700);
  assert.deepEqual(calls, [2, 2]);
  view.sync.destroy();
});

test("a push that fails is retried, and a rejected one stops pushing", async () => {
  const server = new Server("abc", rng(5));
  const t = server.transport();
  let failures = 2;
  const flaky = {
    ...t,
    push: (version, ups) => (failures-- > 0 ? Promise.reject(new Error("offline")) : t.push(version, ups)),
  };
  const warn = console.warn;
  console.warn = () => {};
  try {
    const view = fakeView("abc", 0, "me", flaky);
    view.dispatch({ changes: { from: 3, insert: "d" } });
    view.dispatch({ changes: { from: 4, insert: "e" } });
    for (let i = 0; i < 100 && view.sync.pending() > 0; i++) await sleep(50);
    assert.equal(view.sync.pending(), 0, "the updates were never confirmed after the network came back");
    assert.equal(server.doc.toString(), "abcde");
    view.sync.destroy();
  } finally {
    console.warn = warn;
  }

  const errors = [];
  let pushes = 0;
  const refusing = {
    push: async () => (pushes++, { rejected: "update 0 makes the document too long" }),
    pull: async () => [],
    onUpdates() {},
  };
  const view = fakeView("abc", 0, "me", refusing, { onError: (why) => errors.push(why) });
  view.dispatch({ changes: { from: 0, insert: "x" } });
  await sleep(50);
  view.dispatch({ changes: { from: 0, insert: "y" } });
  await sleep(50);
  assert.deepEqual(errors, ["update 0 makes the document too long"]);
  assert.equal(pushes, 1, "pushed again after a rejection");
  assert.equal(view.sync.stalled(), "update 0 makes the document too long");
  view.sync.destroy();
});
