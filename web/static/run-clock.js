// run-clock.js: an overall clock the server drew (a whole set run as one
// timed sequence, a screen practised as a whole) ticks on in the browser
// from the time the page was given, says the time left at a few moments
// as the answer box does, and at zero says the time is up and locks what
// it bounds. The server's clock stays the judge: a reload draws the clock
// again from the stored start, and whatever the browser sends after the
// time is judged there (a late answer is kept apart, a move ends the run).
(function () {
  "use strict";

  var TICK_MS = 250;
  var WARN_UNDER_MS = 60000;
  var ANNOUNCE_AT_S = [600, 300, 60, 30, 10];

  var clockText = window.FaultlineClockText.text; // clock-text.js, loaded first
  var spoken = window.FaultlineClockText.spoken;

  function Clock(root) {
    this.root = root;
    this.text = root.querySelector("[data-clock-text]");
    this.step = root.querySelector("[data-step-clock]");
    this.announcer = root.querySelector("[data-clock-announce]");
    this.down = root.getAttribute("data-clock-dir") === "down";
    this.what = root.getAttribute("data-clock-what") || "The";
    this.shown = Number(root.getAttribute("data-clock-ms")) || 0;
    this.stepShown = this.step ? Number(this.step.getAttribute("data-clock-ms")) || 0 : 0;
    this.from = performance.now();
    this.announced = {};
    this.over = false;
    if (root.getAttribute("data-clock-running") !== "true" || !this.text) { return; }
    var self = this;
    // Moments already passed when the page was drawn are not announced.
    ANNOUNCE_AT_S.forEach(function (s) { if (self.down && self.shown / 1000 <= s) { self.announced[s] = true; } });
    root.setAttribute("data-clock-state", "running");
    this.tick();
    this.ticker = window.setInterval(function () { self.tick(); }, TICK_MS);
  }

  Clock.prototype.announce = function (message) {
    var a = this.announcer;
    if (!a) { return; }
    // Cleared first so the same words are announced again if repeated.
    a.textContent = "";
    window.setTimeout(function () { a.textContent = message; }, 50);
  };

  // boxSpeaks reports whether a running answer box on the page will say
  // the same moment itself: inside a whole-set run its limit ends with the
  // run, and two voices saying "10 seconds left" at once is one too many.
  Clock.prototype.boxSpeaks = function (s) {
    return s <= 60 && !!document.querySelector('[data-timed-box][data-state="running"][data-mode="timed"]');
  };

  Clock.prototype.tick = function () {
    if (this.over) { return; }
    var passed = performance.now() - this.from;
    if (this.step) { this.step.textContent = clockText(this.stepShown + passed, false); }
    if (!this.down) {
      this.text.textContent = clockText(this.shown + passed, false);
      return;
    }
    var left = this.shown - passed;
    this.text.textContent = clockText(left, true);
    this.text.classList.toggle("warning", left < WARN_UNDER_MS);
    var secs = Math.ceil(left / 1000);
    for (var i = 0; i < ANNOUNCE_AT_S.length; i++) {
      var s = ANNOUNCE_AT_S[i];
      if (secs <= s && !this.announced[s]) {
        this.announced[s] = true;
        if (secs > 0 && !this.boxSpeaks(s)) { this.announce(spoken(s)); }
      }
    }
    if (left <= 0) { this.up(); }
  };

  // up stops the clock at zero and locks what it bounds: the answer boxes
  // of a whole-set run (timed-answer.js locks and submits them on this
  // event), or a screen's moves, which the page now sends to the summary.
  Clock.prototype.up = function () {
    this.over = true;
    window.clearInterval(this.ticker);
    this.text.textContent = "0:00";
    this.text.classList.add("warning");
    this.root.setAttribute("data-clock-state", "up");
    var note = this.root.querySelector("[data-clock-up-note]");
    if (note) { note.hidden = false; }
    this.announce(this.what + " time is up.");
    // Only a clock that bounds answers (the whole set's) locks them; a
    // screen's clock shown beside a step only says so.
    if (this.root.getAttribute("data-clock-on-up") === "lock") {
      document.dispatchEvent(new CustomEvent("faultline:run-clock-up", { detail: { clock: this.root } }));
    }
  };

  function boot() {
    document.querySelectorAll("[data-run-clock]").forEach(function (el) { new Clock(el); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", boot);
  } else {
    boot();
  }
})();
