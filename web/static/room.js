// A live screen's page (interviewer or candidate): follows the room's
// event stream, mounts the shared editor, sends the page's forms without
// a reload, and on the candidate's page reports large pastes and the tab
// losing focus. Without JavaScript the forms still work (each POST comes
// back to the room's page); only the live parts need it.
(function () {
  "use strict";
  var root = document.getElementById("room");
  if (!root) return;
  var base = root.dataset.roomBase;
  var role = root.dataset.role;
  var item = Number(root.dataset.item);
  var clientID = root.dataset.clientId || "";
  var panel = document.getElementById("room-panel");
  var announce = document.getElementById("room-announce");
  // largePaste is the size from which a paste is reported to the
  // interviewer: a name or a line is ordinary, a block is worth a note.
  var largePaste = 200;

  function say(msg) {
    if (announce) announce.textContent = msg;
  }

  function answer(r) {
    return r.text().then(function (text) {
      var body = {};
      try { body = text ? JSON.parse(text) : {}; } catch (e) { body = {}; }
      if (!r.ok) throw new Error(body.error || "The server answered " + r.status + ".");
      return body;
    });
  }

  function post(url, fields) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields),
    }).then(answer);
  }

  // The panel is re-rendered by the server for this page's role and
  // swapped in; focus stays on the control that had it. The candidate's
  // workspace has no one panel: its live parts ([data-room-live]) are
  // swapped one by one, by id, so the tabs and the editor stay as they are.
  var live = document.querySelector("[data-room-live]") !== null;
  function swapLive(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    doc.querySelectorAll("[data-room-live][id]").forEach(function (fresh) {
      var mine = document.getElementById(fresh.id);
      if (mine) mine.replaceWith(document.adoptNode(fresh));
    });
  }
  var refreshing = null;
  function refreshPanel() {
    if ((!panel && !live) || refreshing) return;
    refreshing = setTimeout(function () {
      refreshing = null;
      fetch(base + "/panel", { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) {
          if (!r.ok) throw new Error("The room could not be read (" + r.status + ").");
          return r.text();
        })
        .then(function (html) {
          var active = document.activeElement;
          var keep = active && active.id && (panel ? panel.contains(active) : active.closest("[data-room-live]")) ? active.id : "";
          if (panel) panel.innerHTML = html;
          else swapLive(html);
          if (keep && document.getElementById(keep)) document.getElementById(keep).focus();
          tickClock();
        })
        .catch(function (e) { say(e.message); });
    }, 100);
  }

  // A form's own address: form.action would be the clock form's field
  // named "action" instead.
  function actionOf(form) {
    return new URL(form.getAttribute("action"), location.href).href;
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.hasAttribute("data-room-action")) return;
    ev.preventDefault();
    post(actionOf(form), new FormData(form))
      .then(function () { say("Done."); refreshPanel(); })
      .catch(function (e) { say(e.message); });
  });

  // The clock counts down between events from what the server said. A
  // timed answer box on the page follows it (timed-answer.js).
  function clockSays(phase, remainingMs) {
    document.dispatchEvent(new CustomEvent("faultline:room-clock", { detail: { phase: phase, remainingMs: remainingMs } }));
  }
  var clockTimer = null;
  function tickClock() {
    var el = document.querySelector(".room-clock");
    if (clockTimer) { clearInterval(clockTimer); clockTimer = null; }
    if (el) clockSays(el.dataset.clockPhase, Number(el.dataset.remainingMs));
    if (!el || el.dataset.clockPhase !== "running") return;
    var end = Date.now() + Number(el.dataset.remainingMs);
    var value = el.querySelector(".room-clock-value");
    clockTimer = setInterval(function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      value.textContent = left === 0 ? "Time is up" : Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " left";
    }, 1000);
  }
  tickClock();

  // The shared editor.
  var editor = null;
  var deliver = null;
  var textarea = document.getElementById("room-code-textarea");
  if (textarea && clientID && window.FaultlineEditor && typeof window.FaultlineEditor.mount === "function") {
    textarea.readOnly = false;
    var nonced = document.querySelector("script[nonce]");
    var codeURL = base + "/code/" + item;
    editor = window.FaultlineEditor.mount(textarea, {
      describedBy: "room-editor-help",
      nonce: nonced ? nonced.nonce : undefined,
      collab: {
        startVersion: Number(root.dataset.codeVersion) || 0,
        clientID: clientID,
        name: role === "interviewer" ? "Interviewer" : "Candidate",
        colour: role === "interviewer" ? 2 : 1,
        transport: {
          push: function (version, updates) {
            return fetch(codeURL + "/push", {
              method: "POST",
              credentials: "same-origin",
              headers: { "Accept": "application/json", "Content-Type": "application/json" },
              body: JSON.stringify({ version: version, updates: updates }),
            }).then(answer).then(function (b) { return b.conflict ? { conflict: true } : { ok: true }; });
          },
          pull: function (since) {
            return fetch(codeURL + "/pull?since=" + since, { credentials: "same-origin", headers: { "Accept": "application/json" } })
              .then(answer).then(function (b) { return b.updates; });
          },
          onUpdates: function (callback) { deliver = callback; },
        },
        // A cursor moved without an edit (an edit's rides with its
        // push); a refusal (too soon after the last) is sent again.
        onSelection: function (report) {
          report.item = item;
          return post(base + "/cursor", { cursor: JSON.stringify(report) });
        },
      },
    });
  }

  // The editor's settings, as on a problem's workspace (editor-tools.js).
  var tools = document.getElementById("code-tools");
  if (editor && tools && window.FaultlineEditorTools) window.FaultlineEditorTools.attach(editor, tools);

  window.faultlineRoom = { editor: editor }; // for tests and the console

  // The room's stream: from the event this page was rendered at; on a
  // reconnection the browser sends Last-Event-ID itself.
  var kinds = ["room.created", "item.changed", "hint.released", "timer.started", "timer.paused", "timer.resumed",
    "timer.extended", "code.update", "cursor.moved", "answer.text", "run.started", "run.finished", "run.shared",
    "note.saved", "rubric.scored", "recommendation.set", "signal.paste", "signal.hidden", "signal.visible", "room.ended"];
  var stream = new EventSource(base + "/events?last_event_id=" + encodeURIComponent(root.dataset.lastSeq || "0"));
  function onEvent(ev) {
    var d = JSON.parse(ev.data);
    switch (d.kind) {
      case "code.update":
        if (d.item === item && deliver) deliver([d.update], d.version);
        return;
      case "cursor.moved":
        if (d.item === item && editor && editor.collab && d.cursor.clientID !== clientID) editor.collab.setPeer(d.cursor);
        return;
      case "item.changed":
        location.reload();
        return;
      case "room.ended":
        // The room's pages are closed now: nothing to refresh.
        stream.close();
        clockSays("ended", 0);
        say(role === "candidate" ? "The interviewer has ended the room. Thank you." : "You have ended the room.");
        if (editor && editor.view) editor.view.contentDOM.setAttribute("contenteditable", "false");
        return;
      case "answer.text":
        if (role === "candidate") return; // the candidate's own text
        break;
      case "hint.released":
        if (role === "candidate") say("The interviewer gave you a hint: it is with its part.");
        break;
      case "run.shared":
        if (role === "candidate") say("The interviewer shared a grader report: it is under the code.");
        break;
    }
    refreshPanel();
  }
  kinds.forEach(function (k) { stream.addEventListener(k, onEvent); });
  stream.addEventListener("error", function () {
    if (stream.readyState === EventSource.CLOSED) say("The connection to the room closed. Reload the page to reconnect.");
  });

  if (role !== "candidate") return;

  // Facts for the interviewer: the tab hidden or the window left, and
  // for how long (the server times it), and large pastes.
  var away = false;
  function awayChanged() {
    var now = document.hidden || !document.hasFocus();
    if (now === away) return;
    away = now;
    post(base + "/signal", { signal: away ? "hidden" : "visible" }).catch(function () {});
  }
  document.addEventListener("visibilitychange", awayChanged);
  window.addEventListener("blur", awayChanged);
  window.addEventListener("focus", awayChanged);
  document.addEventListener("paste", function (ev) {
    var text = (ev.clipboardData && ev.clipboardData.getData("text")) || "";
    if (text.length < largePaste) return;
    var inAnswer = !!(ev.target && ev.target.closest && ev.target.closest("[data-timed-box]"));
    post(base + "/signal", { signal: inAnswer ? "paste-answer" : "paste-code", bytes: new Blob([text]).size }).catch(function () {});
  }, true);
  // The answer box (timed-answer.js) saves as the candidate types; each
  // save reaches the interviewer's page.
})();
