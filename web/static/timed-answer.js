// timed-answer.js: the timed answer box. The page works without it (a
// plain form, stored untimed); with it, the clock starts on the first
// keystroke (the server records when), text autosaves every few seconds and
// on blur, a copy is kept in localStorage so text typed offline survives a
// reload, the box locks and submits at zero, and the model answer and the
// self-assessment replace the box without a full page load. The server's
// clock is the truth: the countdown runs from the remaining time it sends.
// In a live room (data-room-clock) the interviewer's clock is the box's:
// nothing starts at the first keystroke, a pause holds the countdown and
// a resume or an extension carries it on (room.js says when, with a
// faultline:room-clock event), and each save streams to the interviewer.
(function () {
  "use strict";

  var SAVE_EVERY_MS = 3000;
  var ROOM_SAVE_EVERY_MS = 800; // in a room the interviewer reads along
  var TICK_MS = 250;
  var WARN_UNDER_MS = 30000;
  var ANNOUNCE_AT_S = [60, 30, 10];
  var RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];

  // post sends fields as a form and resolves with the JSON answer. A
  // rejection carries .status (absent for a network failure) and the
  // server's message, so the caller can tell "retry" from "say what's wrong".
  function post(url, fields) {
    var body = new URLSearchParams();
    Object.keys(fields).forEach(function (k) {
      [].concat(fields[k]).forEach(function (v) { body.append(k, v); });
    });
    return fetch(url, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "Accept": "application/json" }
    }).then(function (resp) {
      return resp.json().catch(function () { return {}; }).then(function (data) {
        if (!resp.ok) {
          var err = new Error(data.error || "The server answered " + resp.status + ".");
          err.status = resp.status;
          err.data = data;
          throw err;
        }
        return data;
      });
    });
  }

  function retryable(err) { return !err.status || err.status >= 500 || err.status === 429; }

  // The box's clock only counts down. clock-text.js is loaded first.
  function clockText(ms) { return window.FaultlineClockText.text(ms, true); }
  var spoken = window.FaultlineClockText.spoken;

  function readLocal(key) {
    try { return JSON.parse(window.localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  function writeLocal(key, value) {
    try {
      if (value === null) { window.localStorage.removeItem(key); } else { window.localStorage.setItem(key, JSON.stringify(value)); }
    } catch (e) { /* storage full or blocked: the server copy still works */ }
  }

  // Every box made, so an overall clock running out can lock them all.
  var boxes = [];

  function Box(root) {
    boxes.push(this);
    this.root = root;
    this.form = root.querySelector("form[data-timed-form]");
    this.text = this.form.querySelector("textarea");
    this.clock = root.querySelector("[data-timer-clock]");
    this.notice = root.querySelector("[data-timer-notice]");
    this.announcer = root.querySelector("[data-timer-announce]");
    this.sessionInput = root.querySelector("[data-timer-session]");
    this.modes = root.querySelector("[data-timer-modes]");
    this.submitButton = this.form.querySelector("button[type=submit]");
    this.base = root.getAttribute("data-base");
    this.limitMs = Number(root.getAttribute("data-limit-ms")) || 120000;
    this.mode = root.getAttribute("data-mode") || "timed";
    this.session = this.sessionInput.value;
    this.seq = Number(root.getAttribute("data-seq")) || 0;
    this.roomClock = root.getAttribute("data-room-clock"); // null outside a room
    this.saveEvery = this.roomClock === null ? SAVE_EVERY_MS : ROOM_SAVE_EVERY_MS;
    this.key = "faultline:timed:" + this.base;
    this.deadline = null;      // performance.now() at which the box locks
    this.announced = {};
    this.dirty = false;        // text changed since the server last confirmed it
    this.saving = false;
    this.saveTimer = null;
    this.retries = 0;
    this.replacedOther = false; // a stale save's text is being saved over another tab's
    this.starting = false;
    this.submitting = false;
    this.submitQueued = false;
    this.locked = false;
    this.init();
  }

  Box.prototype.init = function () {
    var self = this;
    this.root.querySelectorAll("[data-timer-bar], [data-timer-modes]").forEach(function (el) { el.hidden = false; });
    this.help = this.root.querySelector(".timer-help");
    if (this.help && !this.text.hasAttribute("aria-describedby")) { this.text.setAttribute("aria-describedby", this.help.id); }
    this.recoverLocal();

    var state = this.root.getAttribute("data-state");
    if (this.roomClock !== null) {
      // The room's clock stands in for a session: there is nothing to start.
      this.session = "room";
      if (state === "submitted") {
        this.locked = true;
      } else {
        this.followRoom(this.roomClock, Number(this.root.getAttribute("data-remaining-ms")));
        if (state === "locked" && this.roomClock !== "ended") { this.expire(); }
      }
    } else if (this.session) {
      this.modes.disabled = true;
      this.setState(state);
      if (this.mode === "timed") {
        this.deadline = performance.now() + Number(this.root.getAttribute("data-remaining-ms"));
        this.skipPassedAnnouncements();
        this.tick();
      } else {
        this.clock.textContent = "no limit";
      }
      if (state === "locked") { this.expire(); }
    }

    this.text.addEventListener("input", function () { self.onInput(); });
    this.text.addEventListener("blur", function () { if (self.dirty) { self.save(); } });
    this.form.addEventListener("submit", function (ev) { ev.preventDefault(); self.submit(); });
    this.root.querySelectorAll("input[name=mode]").forEach(function (r) {
      r.addEventListener("change", function () {
        self.clock.textContent = r.value === "untimed" && r.checked ? "no limit" : clockText(self.limitMs);
      });
    });
    window.addEventListener("online", function () { self.retryNow(); });
    window.addEventListener("pagehide", function () { self.beacon(); });
    this.setUpDictation();
    this.ticker = window.setInterval(function () { self.tick(); }, TICK_MS);
  };

  // recoverLocal puts back text that only this browser has: typed while
  // the connection was down, then the page was reloaded.
  Box.prototype.recoverLocal = function () {
    var local = readLocal(this.key);
    if (!local || !local.dirty) { return; }
    // Same session, or typed before the start's answer came back (the
    // server has the session but none of this text yet).
    if (this.session && (local.session === this.session || (!local.session && this.text.value === ""))) {
      if (local.seq > this.seq && local.text !== this.text.value) {
        this.text.value = local.text;
        this.dirty = true;
        this.scheduleSave(0);
      }
      return;
    }
    if (local.session && local.session !== this.session) {
      // The session ended on the server (expired while away): send the
      // text anyway; the server keeps it with that answer, marked late.
      var self = this;
      post(this.base + "/answer", { session: local.session, answer: local.text, seq: local.seq })
        .then(function () { writeLocal(self.key, null); })
        .catch(function () { /* kept locally; tried again on the next load */ });
      return;
    }
    if (!this.session && !local.session && this.text.value === "") {
      this.text.value = local.text; // typed before the start reached the server
    }
  };

  Box.prototype.setState = function (state) {
    if (this.root.getAttribute("data-state") !== state) { this.root.setAttribute("data-state", state); }
    if (!this.help) { return; }
    if (state === "locked") {
      this.help.textContent = "Time is up: the box is locked.";
    } else if (state === "paused") {
      this.help.textContent = "The interviewer has paused the clock.";
    } else if (state === "idle" && this.roomClock !== null) {
      this.help.textContent = "The interviewer starts the clock; you can write before it does.";
    } else if (state === "running" && this.roomClock !== null) {
      this.help.textContent = "The interviewer's clock: the box locks at 0:00 and submits what you wrote.";
    } else if (state === "running") {
      this.help.textContent = this.mode === "untimed" ? "No limit: take your time, then submit." :
        "The clock is running; the box locks at 0:00 and submits what you wrote.";
    }
  };

  Box.prototype.say = function (message) { this.notice.textContent = message; };

  Box.prototype.announce = function (message) {
    // Clear first so the same words are announced again if repeated.
    var a = this.announcer;
    a.textContent = "";
    window.setTimeout(function () { a.textContent = message; }, 50);
  };

  Box.prototype.onInput = function () {
    if (this.locked) { return; }
    this.dirty = true;
    writeLocal(this.key, { session: this.session || null, text: this.text.value, seq: Math.max(Date.now(), this.seq + 1), dirty: true });
    if (!this.session) { this.start(); return; }
    this.scheduleSave(this.saveEvery);
  };

  // start asks the server to record the first keystroke. The countdown
  // starts at once from the whole limit and is corrected by the server's
  // remaining time when it answers.
  Box.prototype.start = function () {
    if (this.starting || this.session) { return; }
    var self = this;
    var checked = this.root.querySelector("input[name=mode]:checked");
    this.mode = checked ? checked.value : "timed";
    this.root.setAttribute("data-mode", this.mode); // run-clock.js reads it
    this.starting = true;
    this.modes.disabled = true;
    this.setState("running");
    if (this.mode === "timed") {
      if (this.deadline === null) { this.deadline = performance.now() + this.limitMs; }
    } else {
      this.clock.textContent = "no limit";
    }
    post(this.base + "/timer/start", { mode: this.mode }).then(function (data) {
      self.starting = false;
      self.retries = 0;
      self.say("");
      self.session = String(data.session);
      self.sessionInput.value = self.session;
      // Inside a whole-set run "no limit" comes back timed to the run's end.
      self.mode = data.mode;
      self.root.setAttribute("data-mode", self.mode);
      self.setState(data.state === "locked" ? "running" : data.state);
      self.seq = Math.max(self.seq, data.draft_seq || 0);
      if (data.mode === "timed") {
        self.deadline = performance.now() + data.remaining_ms;
        self.skipPassedAnnouncements();
      } else {
        self.deadline = null;
        self.clock.textContent = "no limit";
      }
      if (data.state === "locked") { self.expire(); return; }
      if (self.submitQueued) { self.submit(); return; }
      if (self.dirty) { self.scheduleSave(0); }
    }).catch(function (err) {
      self.starting = false;
      if (retryable(err)) {
        self.offline(function () { self.start(); });
      } else {
        self.say("The timer could not start: " + err.message + " Your text is kept in this box.");
      }
    });
  };

  Box.prototype.scheduleSave = function (delay) {
    var self = this;
    if (this.saveTimer !== null) {
      if (delay > 0) { return; } // a save is already due
      window.clearTimeout(this.saveTimer);
    }
    this.saveTimer = window.setTimeout(function () { self.saveTimer = null; self.save(); }, delay);
  };

  // save sends the current text. The sequence number grows with every save
  // (it is a timestamp, so it also grows across reloads); the server ignores
  // a save older than one it already has.
  Box.prototype.save = function () {
    var self = this;
    if (!this.session || this.saving || this.submitting) { return Promise.resolve(); }
    var text = this.text.value;
    var seq = Math.max(Date.now(), this.seq + 1);
    this.seq = seq;
    this.saving = true;
    return post(this.base + "/timer/draft", { session: this.session, text: text, seq: seq }).then(function (data) {
      self.saving = false;
      self.retries = 0;
      if (data.stale) { self.resync(data, text); return; }
      if (self.text.value === text) {
        self.dirty = false;
        self.root.setAttribute("data-saved-at", String(data.saved_at));
        writeLocal(self.key, { session: self.session, text: text, seq: seq, dirty: false });
      } else {
        self.scheduleSave(self.saveEvery);
      }
      if (data.late) {
        self.say("Time was up when this text arrived: it is kept, marked late.");
      } else if (self.replacedOther) {
        self.say("Saved. Another tab or device had saved different text for this answer; the text in this box replaced it.");
      } else {
        self.say("");
      }
      self.replacedOther = false;
      if (data.clock_phase && self.roomClock !== null) { self.followRoom(data.clock_phase, data.remaining_ms); }
      if (data.state === "locked" && !self.locked) { self.expire(); }
      if (data.state === "submitted") { self.refresh(); }
    }).catch(function (err) {
      self.saving = false;
      if (retryable(err)) {
        self.offline(function () { self.save(); });
      } else {
        self.say("Not saved: " + err.message);
      }
    });
  };

  // resync handles a stale save: the server already held a save numbered
  // at or after this one (another tab or device, whose clock may run ahead
  // of this one's), so this text was not stored. The box never takes that
  // for saved. It numbers its saves after the server's from now on; if the
  // server's text is this box's, nothing was lost; otherwise the text typed
  // here stays in the box and is saved over the other, and the user is told.
  Box.prototype.resync = function (data, sent) {
    this.seq = Math.max(this.seq, Number(data.seq) || 0);
    var theirs = data.text || "";
    if (theirs === this.text.value) {
      this.dirty = false;
      this.root.setAttribute("data-saved-at", String(data.saved_at));
      writeLocal(this.key, { session: this.session, text: theirs, seq: this.seq, dirty: false });
      this.say("");
    } else {
      this.dirty = true;
      writeLocal(this.key, { session: this.session, text: this.text.value, seq: this.seq, dirty: true });
      if (theirs !== sent) {
        this.replacedOther = true;
        this.say("Another tab or device saved different text for this answer. The text in this box is kept and is being saved in its place.");
      }
      this.scheduleSave(0);
    }
    if (data.state === "locked" && !this.locked) { this.expire(); }
    if (data.state === "submitted") { this.refresh(); }
  };

  // offline says the connection is lost and retries with backoff; the text
  // stays in the box and in localStorage meanwhile.
  Box.prototype.offline = function (again) {
    var self = this;
    var wait = RETRY_MS[Math.min(this.retries, RETRY_MS.length - 1)];
    this.retries++;
    this.say("Connection lost: your text is kept in this browser and will be saved when the connection is back. Retrying in " +
      Math.round(wait / 1000) + " s.");
    window.clearTimeout(this.retryTimer);
    this.retryAction = again;
    this.retryTimer = window.setTimeout(function () { self.retryAction = null; again(); }, wait);
  };

  Box.prototype.retryNow = function () {
    if (!this.retryAction) { return; }
    var again = this.retryAction;
    this.retryAction = null;
    window.clearTimeout(this.retryTimer);
    again();
  };

  Box.prototype.skipPassedAnnouncements = function () {
    if (this.deadline === null) { return; }
    var left = (this.deadline - performance.now()) / 1000;
    var self = this;
    ANNOUNCE_AT_S.forEach(function (s) { if (left <= s) { self.announced[s] = true; } });
  };

  Box.prototype.tick = function () {
    if (this.deadline === null || this.locked) { return; }
    var left = this.deadline - performance.now();
    this.clock.textContent = clockText(left);
    this.clock.classList.toggle("warning", left < WARN_UNDER_MS);
    var secs = Math.ceil(left / 1000);
    for (var i = 0; i < ANNOUNCE_AT_S.length; i++) {
      var s = ANNOUNCE_AT_S[i];
      if (secs <= s && !this.announced[s]) {
        this.announced[s] = true;
        this.announce(spoken(s));
      }
    }
    if (left <= 0) { this.expire(); }
  };

  // expire locks the box at zero and submits what is there.
  Box.prototype.expire = function () {
    if (this.locked) { return; }
    this.locked = true;
    this.text.readOnly = true;
    this.clock.textContent = "0:00";
    this.clock.classList.add("warning");
    this.setState("locked");
    this.announce("Time is up. The box is locked and your answer is being submitted.");
    this.submit();
  };

  // followRoom sets the box to the room's clock: its phase (idle,
  // running, paused, up, or ended with the room) and the time it has left,
  // as the server said it.
  Box.prototype.followRoom = function (phase, remainingMs) {
    if (this.locked || this.submitting) { return; }
    this.roomClock = phase;
    this.root.setAttribute("data-room-clock", phase);
    switch (phase) {
      case "running":
        this.deadline = performance.now() + remainingMs;
        this.skipPassedAnnouncements();
        this.setState("running");
        this.tick();
        return;
      case "up":
        this.expire();
        return;
      case "ended":
        this.locked = true;
        this.deadline = null;
        this.text.readOnly = true;
        this.setState("locked");
        this.say("The room has ended.");
        return;
    }
    // Idle or paused: the countdown holds at what is left.
    this.deadline = null;
    this.clock.textContent = clockText(remainingMs);
    this.clock.classList.toggle("warning", phase === "paused" && remainingMs < WARN_UNDER_MS);
    this.setState(phase);
  };

  document.addEventListener("faultline:room-clock", function (ev) {
    var d = ev.detail || {};
    boxes.slice().forEach(function (box) {
      if (box.roomClock !== null && document.contains(box.root)) { box.followRoom(d.phase, Number(d.remainingMs) || 0); }
    });
  });

  // runOut is the overall clock (the whole set's) reaching zero: a box
  // that is running locks and submits, as at its own zero (its limit was
  // cut to end with the run, so the server agrees); one not begun locks
  // empty, and the server's page, fetched again, offers the way on. A box
  // with no limit is not bounded by the run.
  Box.prototype.runOut = function () {
    if (this.locked || this.submitting || !document.contains(this.root)) { return; }
    if (this.mode === "untimed" && (this.session || this.starting)) { return; }
    if (this.session || this.starting) { this.expire(); return; }
    this.locked = true;
    this.text.readOnly = true;
    if (this.modes) { this.modes.disabled = true; }
    this.setState("locked");
    this.say("The whole set's time is up.");
    this.refresh();
  };

  document.addEventListener("faultline:run-clock-up", function () {
    boxes.slice().forEach(function (box) { box.runOut(); });
  });

  Box.prototype.submit = function () {
    var self = this;
    if (this.submitting) { return; }
    if (this.starting) { this.submitQueued = true; return; }
    var text = this.text.value;
    if (!this.session && text.trim() === "") {
      this.say("Write an answer before submitting.");
      return;
    }
    this.submitting = true;
    this.submitQueued = false;
    this.submitButton.disabled = true;
    window.clearTimeout(this.saveTimer);
    this.saveTimer = null;
    var fields = { answer: text, seq: Math.max(Date.now(), this.seq + 1) };
    if (this.session) { fields.session = this.session; }
    // The guess of key points covered, said before ticking them (issue 29).
    var predicted = this.form.querySelector("[data-predicted]");
    if (predicted && predicted.value.trim() !== "") { fields.predicted = predicted.value.trim(); }
    post(this.base + "/answer", fields).then(function (data) {
      writeLocal(self.key, null);
      self.dirty = false;
      self.say(data.message || "Answer saved.");
      self.refresh();
    }).catch(function (err) {
      self.submitting = false;
      self.submitButton.disabled = false;
      if (retryable(err)) {
        self.offline(function () { self.submit(); });
      } else if (err.status === 409) {
        self.refresh();
      } else {
        self.say("Not submitted: " + err.message);
        self.text.focus();
      }
    });
  };

  // refresh replaces this box's part of the page (and the answer material
  // the submit revealed) with the server's new rendering, without a full
  // page load. If that fails, a reload is safe: the answer is stored.
  Box.prototype.refresh = function () {
    window.clearInterval(this.ticker);
    var container = this.root.closest("section.question") || this.root.closest("section#answer") || this.root;
    // A box opened from the review queue (?again=) shows its answer and
    // the model answer once answered again: the page is asked for without it.
    var params = new URLSearchParams(window.location.search);
    if (params.has("again")) {
      params.delete("again");
      var query = params.toString() ? "?" + params.toString() : "";
      window.history.replaceState(window.history.state, "", window.location.pathname + query + window.location.hash);
    }
    fetch(window.location.pathname + window.location.search, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (resp) {
        if (!resp.ok) { throw new Error("status " + resp.status); }
        return resp.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = container.id && doc.getElementById(container.id);
        if (!fresh) { throw new Error("no " + container.id + " in the new page"); }
        container.replaceWith(document.adoptNode(fresh));
        // The problem's answer material sits beside the box, and each
        // part's rubric under its part.
        var region = doc.getElementById("answer-material-region");
        var oldRegion = document.getElementById("answer-material-region");
        var material = doc.getElementById("answer-material");
        if (region && oldRegion && fresh.id === "answer") {
          oldRegion.replaceChildren.apply(oldRegion, Array.prototype.slice.call(document.adoptNode(region).childNodes));
          doc.querySelectorAll("section.part[id]").forEach(function (part) {
            var mine = document.getElementById(part.id);
            if (mine) { part.hidden = mine.hidden; mine.replaceWith(document.adoptNode(part)); }
          });
        } else if (material && fresh.id === "answer") {
          var old = document.getElementById("answer-material");
          if (old) { old.replaceWith(document.adoptNode(material)); } else { fresh.after(document.adoptNode(material)); }
          doc.querySelectorAll("section.part[id]").forEach(function (part) {
            var mine = document.getElementById(part.id);
            if (mine) { mine.replaceWith(document.adoptNode(part)); }
          });
        }
        fresh.querySelectorAll("[data-timed-box]").forEach(function (el) { new Box(el); });
        var heading = fresh.querySelector("[data-timed-box] h3");
        if (heading) {
          heading.setAttribute("tabindex", "-1");
          heading.focus();
        }
      })
      .catch(function () { window.location.reload(); });
  };

  // beacon sends unsaved text as the page goes away.
  Box.prototype.beacon = function () {
    if (!this.dirty || !this.session || this.submitting || !navigator.sendBeacon) { return; }
    var body = new URLSearchParams();
    body.append("session", this.session);
    body.append("text", this.text.value);
    body.append("seq", String(Math.max(Date.now(), this.seq + 1)));
    navigator.sendBeacon(this.base + "/timer/draft", body);
  };

  // dictationRefused is the plain sentence for a speech recognition error,
  // or "" when there is nothing to say (the user stopped it).
  function dictationRefused(code) {
    switch (code) {
      case "not-allowed":
      case "service-not-allowed":
        return "Dictation is off: this browser did not allow the microphone for this site. You can allow it in the site's settings, or type your answer.";
      case "audio-capture":
        return "Dictation is off: no microphone was found. Type your answer instead.";
      case "network":
        return "Dictation stopped: this browser's speech service could not be reached. Type your answer instead.";
      case "no-speech":
        return "Dictation stopped: no speech was heard. Press Dictate to try again.";
      case "language-not-supported":
        return "Dictation is off: this browser cannot recognise English speech. Type your answer instead.";
      case "aborted":
        return "";
    }
    return "Dictation stopped: the browser's speech recognition failed. Type your answer instead.";
  }

  // setUpDictation offers the browser's speech recognition, since the
  // answer is meant to be said out loud. Words are appended. The button
  // shows only where recognition can work: the browser has it, the page is
  // a secure context (browsers refuse the microphone elsewhere) and the
  // microphone is not already denied to this site.
  Box.prototype.setUpDictation = function () {
    var Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
    var button = this.root.querySelector("[data-dictate]");
    if (!Recognition || !button || !window.isSecureContext) { return; }
    var self = this;
    var rec = null;
    var refused = false;
    function show(state) { button.hidden = state === "denied"; }
    if (navigator.permissions && navigator.permissions.query) {
      navigator.permissions.query({ name: "microphone" }).then(function (status) {
        show(status.state);
        status.onchange = function () { show(status.state); };
      }).catch(function () { show("prompt"); });
    } else {
      show("prompt");
    }
    button.addEventListener("click", function () {
      if (rec) { rec.stop(); return; }
      if (self.locked) { return; }
      refused = false;
      rec = new Recognition();
      rec.continuous = true;
      rec.interimResults = false;
      rec.lang = document.documentElement.lang || "en";
      rec.onresult = function (ev) {
        for (var i = ev.resultIndex; i < ev.results.length; i++) {
          if (!ev.results[i].isFinal || self.locked) { continue; }
          var words = ev.results[i][0].transcript.trim();
          if (!words) { continue; }
          var sep = self.text.value === "" || /\s$/.test(self.text.value) ? "" : " ";
          self.text.value += sep + words;
          self.text.dispatchEvent(new Event("input", { bubbles: true }));
        }
      };
      rec.onerror = function (ev) {
        var message = dictationRefused(ev.error);
        if (message) { refused = true; self.say(message); }
      };
      rec.onend = function () {
        rec = null;
        button.setAttribute("aria-pressed", "false");
        button.textContent = "Dictate";
        if (refused) { self.text.focus(); }
      };
      try {
        rec.start();
      } catch (e) {
        rec = null;
        self.say(dictationRefused(""));
        return;
      }
      button.setAttribute("aria-pressed", "true");
      button.textContent = "Stop dictation";
    });
  };

  // Self-assessment forms post without leaving the page.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!form.matches || !form.matches("form[data-self-assessment]")) { return; }
    ev.preventDefault();
    var status = form.querySelector("[data-assessment-status]");
    var covered = [];
    form.querySelectorAll("input[name=covered]:checked").forEach(function (c) { covered.push(c.value); });
    var answer = form.querySelector("input[name=answer]").value;
    status.textContent = "Saving…";
    post(form.getAttribute("action"), { answer: answer, covered: covered }).then(function (data) {
      status.textContent = data.text;
    }).catch(function (err) {
      status.textContent = "Not saved: " + err.message + (retryable(err) ? " Try again." : "");
    });
  });

  function boot() {
    document.querySelectorAll("[data-timed-box]").forEach(function (el) { new Box(el); });
  }

  // in-place.js replaced part of the page (a reveal): the boxes that left
  // stop their clocks, and a box that came is started.
  document.addEventListener("faultline:replaced", function (ev) {
    boxes = boxes.filter(function (b) {
      if (b.root.isConnected) return true;
      window.clearInterval(b.ticker);
      b.dirty = false; // its text went over to the new box
      return false;
    });
    ev.detail.querySelectorAll("[data-timed-box]").forEach(function (el) {
      if (!boxes.some(function (b) { return b.root === el; })) new Box(el);
    });
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", boot);
  } else {
    boot();
  }
})();
