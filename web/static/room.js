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
  // A field the user has typed in and not saved: its part of the page is
  // not swapped until it is saved, so a score's note survives the
  // candidate's typing. Each field's value is noted as it arrives.
  var initial = new WeakMap();
  function valueOf(f) {
    return f.type === "radio" || f.type === "checkbox" ? String(f.checked) : f.value;
  }
  function noteValues(within) {
    within.querySelectorAll("input, textarea, select").forEach(function (f) { initial.set(f, valueOf(f)); });
  }
  noteValues(document);
  function dirty(region) {
    return Array.prototype.some.call(region.querySelectorAll("input, textarea, select"), function (f) {
      return f.type !== "hidden" && initial.has(f) && initial.get(f) !== valueOf(f);
    });
  }
  // saved: what the form sent is no longer unsaved.
  function saved(form) { noteValues(form); }
  function swapLive(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    doc.querySelectorAll("[data-room-live][id]").forEach(function (fresh) {
      var mine = document.getElementById(fresh.id);
      if (!mine || dirty(mine)) return;
      // A report the interviewer opened or closed stays so.
      var open = {};
      mine.querySelectorAll("details[data-keep]").forEach(function (d) { open[d.dataset.keep] = d.open; });
      fresh.querySelectorAll("details[data-keep]").forEach(function (d) {
        if (d.dataset.keep in open) d.open = open[d.dataset.keep];
      });
      // A finished run's report never changes: the one on the page, with
      // whatever was loaded into it, stays rather than load again.
      mine.querySelectorAll("details[data-report-run]:not([data-report-src])").forEach(function (d) {
        var f = fresh.querySelector('details[data-report-run="' + d.dataset.reportRun + '"]');
        var had = d.querySelector(".room-report-body");
        var body = f && f.querySelector(".room-report-body");
        if (!had || !body) return;
        body.replaceWith(had);
        f.removeAttribute("data-report-src");
      });
      var node = document.adoptNode(fresh);
      mine.replaceWith(node);
      node.querySelectorAll("details[open][data-report-src]").forEach(loadReport);
      noteValues(node);
    });
  }
  // Every report but the newest comes without its body, which is loaded
  // the first time it is opened (data-report-src); without JavaScript
  // its entry links to the report's own page.
  function loadReport(d) {
    var src = d.getAttribute("data-report-src");
    var body = d.querySelector(".room-report-body");
    if (!src || !body || d.hasAttribute("data-loading")) return;
    d.setAttribute("data-loading", "");
    d.setAttribute("aria-busy", "true");
    fetch(src, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (!r.ok) throw new Error("The report could not be read (" + r.status + "); its link still opens it.");
        return r.text();
      })
      .then(function (html) {
        var box = document.createElement("div");
        box.innerHTML = html;
        var part = box.querySelector(".room-report-body");
        if (!part) throw new Error("The report could not be read; its link still opens it.");
        var hadFocus = body.contains(document.activeElement);
        body.replaceWith(part);
        d.removeAttribute("data-report-src");
        if (hadFocus) d.querySelector("summary").focus();
      })
      .catch(function (e) { say(e.message); })
      .then(function () {
        d.removeAttribute("data-loading");
        d.removeAttribute("aria-busy");
      });
  }
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (d.tagName === "DETAILS" && d.open && d.hasAttribute("data-report-src")) loadReport(d);
  }, true);
  document.querySelectorAll("details[open][data-report-src]").forEach(loadReport);

  // ended: the room is over; nothing more is read or sent.
  var ended = false;
  var endingHere = false; // this page asked for the end: it goes on to the scorecard
  function roomEnded(byMe, expired) {
    byMe = byMe || endingHere;
    if (ended) return;
    ended = true;
    stream.close();
    clockSays("ended", 0);
    if (editor && editor.view) editor.view.contentDOM.setAttribute("contenteditable", "false");
    document.querySelectorAll("form[data-room-action] button, form[data-room-end] button").forEach(function (b) { b.disabled = true; });
    if (role === "interviewer") {
      if (byMe) {
        location.assign(base + "/scorecard");
        return;
      }
      showEnded(expired ? "This room's time is over: it has closed. " : "This room has ended. ", "Open the scorecard", base + "/scorecard");
      say(expired ? "The room has closed." : "The room has ended.");
      return;
    }
    showEnded(expired ? "The room's time is over: it has closed. Thank you for your time." : "The interviewer has ended the room. Thank you for your time.", "", "");
    say(expired ? "The room has closed. Thank you." : "The interviewer has ended the room. Thank you.");
  }
  // showEnded puts a note at the top of the page's live status.
  function showEnded(text, linkText, href) {
    var status = document.getElementById(role === "interviewer" ? "room-iv-status" : "room-status");
    if (!status || status.querySelector(".room-ended-note")) return;
    var p = document.createElement("p");
    p.className = "note room-ended-note";
    p.textContent = text;
    if (href) {
      var a = document.createElement("a");
      a.href = href;
      a.textContent = linkText;
      p.appendChild(a);
      p.appendChild(document.createTextNode("."));
    }
    status.insertBefore(p, status.firstChild);
  }
  var refreshing = null;
  function refreshPanel() {
    if ((!panel && !live) || refreshing || ended) return;
    refreshing = setTimeout(function () {
      refreshing = null;
      fetch(base + "/panel", { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) {
          if (r.status === 410) {
            // Ended or expired: the closed page says which.
            return r.text().then(function (t) { roomEnded(false, /expired/i.test(t)); return Promise.reject(null); });
          }
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
        .catch(function (e) { if (e) say(e.message); });
    }, 100);
  }

  // A form's own address: form.action would be the clock form's field
  // named "action" instead.
  function actionOf(form) {
    return new URL(form.getAttribute("action"), location.href).href;
  }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (form.hasAttribute("data-room-end")) {
      ev.preventDefault();
      askToEnd(form);
      return;
    }
    if (!form.hasAttribute("data-room-action")) return;
    ev.preventDefault();
    if (form.hasAttribute("data-room-run")) showPane("pane-report");
    post(actionOf(form), new FormData(form))
      .then(function () { saved(form); say("Done."); refreshPanel(); })
      .catch(function (e) { say(e.message); });
  });

  // Ending asks first: it cannot be undone. Then the interviewer goes on
  // to the scorecard.
  var endDialog = document.getElementById("room-end-dialog");
  var endForm = null;
  function askToEnd(form) {
    if (!endDialog || typeof endDialog.showModal !== "function") {
      endNow(form);
      return;
    }
    endForm = form;
    endDialog.showModal();
  }
  function endNow(form) {
    endingHere = true;
    post(actionOf(form), {})
      .then(function () { roomEnded(true); })
      .catch(function (e) {
        // Ended already (another tab): the record is what is left.
        if (/ended/.test(e.message)) roomEnded(true);
        else { endingHere = false; say(e.message); }
      });
  }
  if (endDialog) {
    document.getElementById("room-end-cancel").addEventListener("click", function () { endDialog.close(); });
    document.getElementById("room-end-confirm").addEventListener("click", function () {
      endDialog.close();
      if (endForm) endNow(endForm);
    });
  }

  // The interviewer's side pane: its sections become tabs (the WAI-ARIA
  // tabs pattern, selection follows focus). Without the script they read
  // one after another.
  var tablist = document.querySelector(".room-tabs[role=tablist]");
  var tabs = tablist ? Array.prototype.slice.call(tablist.querySelectorAll("[role=tab]")) : [];
  function showPane(id, focus) {
    if (!tabs.length) return;
    var key = "faultline:room-pane:" + base;
    tabs.forEach(function (t) {
      var on = t.getAttribute("aria-controls") === id;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      var pane = document.getElementById(t.getAttribute("aria-controls"));
      if (pane) pane.hidden = !on;
      if (on && focus) t.focus();
    });
    try { sessionStorage.setItem(key, id); } catch (e) { /* forgotten */ }
  }
  if (tabs.length) {
    document.querySelectorAll(".room-pane").forEach(function (p) {
      var tab = document.getElementById(p.id + "-tab");
      if (tab) { p.setAttribute("role", "tabpanel"); p.setAttribute("aria-labelledby", tab.id); p.tabIndex = 0; }
    });
    tabs.forEach(function (t, i) {
      t.addEventListener("click", function () { showPane(t.getAttribute("aria-controls")); });
      t.addEventListener("keydown", function (ev) {
        var to = null;
        if (ev.key === "ArrowRight") to = tabs[(i + 1) % tabs.length];
        else if (ev.key === "ArrowLeft") to = tabs[(i - 1 + tabs.length) % tabs.length];
        else if (ev.key === "Home") to = tabs[0];
        else if (ev.key === "End") to = tabs[tabs.length - 1];
        if (!to) return;
        ev.preventDefault();
        showPane(to.getAttribute("aria-controls"), true);
      });
    });
    var first = tabs[0].getAttribute("aria-controls");
    try {
      var kept = sessionStorage.getItem("faultline:room-pane:" + base);
      if (kept && document.getElementById(kept + "-tab")) first = kept;
    } catch (e) { /* none kept */ }
    tablist.hidden = false;
    root.setAttribute("data-tabs-ready", "");
    showPane(first);
  }

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
      // The step's code language (the room's, where the problem has a
      // starter in it): the parser, and Tab's indent.
      language: root.dataset.lang || "go",
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
        roomEnded(false);
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
    if (stream.readyState !== EventSource.CLOSED || ended) return;
    say("The connection to the room closed. Reload the page to reconnect.");
    refreshPanel(); // a room that closed says so
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
