// The replay page: scrubbing fetches each moment's frame as JSON and
// updates the page in place, instead of loading it again. Without this
// script every step is a link and the slider is a form, so the page works
// the same, one load per moment.
(function () {
  "use strict";
  var root = document.getElementById("replay");
  if (!root) return;
  var frameURL = root.dataset.frameUrl;
  var pageURL = root.dataset.pageUrl;
  var duration = Math.max(Number(root.dataset.duration) || 0, 1);
  var slider = document.getElementById("replay-at");
  var seqOut = document.getElementById("replay-seq");
  var momentOut = document.getElementById("replay-moment");
  var names = { candidate: "Candidate", interviewer: "Interviewer", system: "Grader and room" };
  var pending = 0; // the newest request's number: older answers are dropped

  function two(n) { return (n < 10 ? "0" : "") + n; }
  function durText(ms) {
    var neg = ms < 0 ? "−" : "";
    var s = Math.floor(Math.abs(ms) / 1000);
    if (s >= 3600) return neg + Math.floor(s / 3600) + ":" + two(Math.floor(s % 3600 / 60)) + ":" + two(s % 60);
    return neg + Math.floor(s / 60) + ":" + two(s % 60);
  }
  function mmss(ms) {
    var s = Math.round(Math.max(ms, 0) / 1000);
    return Math.floor(s / 60) + ":" + two(s % 60);
  }
  // The same words as the server's clockText.
  function clock(c) {
    switch (c.phase) {
      case "idle": return "Not started (" + Math.floor(c.limit_ms / 60000) + " min)";
      case "running": return mmss(c.remaining_ms) + " left";
      case "paused": return "Paused, " + mmss(c.remaining_ms) + " left";
      case "up": return "Time is up";
    }
    return "";
  }
  function momentText(m) {
    if (!m) return "";
    return durText(m.at_ms) + " · " + (names[m.track] || m.track) + " · " + m.label;
  }
  function setText(el, text) { if (el && el.textContent !== text) el.textContent = text; }
  function setLink(a, seq) {
    if (!a) return;
    if (seq > 0) {
      a.setAttribute("href", pageURL + "?at=" + seq);
      a.removeAttribute("aria-disabled");
    } else {
      a.removeAttribute("href");
      a.setAttribute("aria-disabled", "true");
    }
  }

  // cursorsText says where each participant's cursor was, as
  // internal/web's replayCursorsText does for the page without script.
  function cursorsText(cursors) {
    if (!cursors || cursors.length === 0) return "No cursor reported yet.";
    return cursors.map(function (c) {
      var who = c.actor === "interviewer" ? "Interviewer" : "Candidate";
      var n = Math.abs(c.head - c.anchor);
      return who + "'s cursor: line " + c.line + ", column " + c.column +
        (n === 1 ? ", with 1 character selected." : n > 1 ? ", with " + n + " characters selected." : ".");
    }).join(" ");
  }

  function show(f) {
    slider.value = String(f.seq);
    var text = momentText(f.moment);
    slider.setAttribute("aria-valuetext", text || ("event " + f.seq));
    setText(seqOut, String(f.seq));
    setText(momentOut, text);
    setText(document.getElementById("replay-step"), String(f.current + 1));
    setText(document.getElementById("replay-clock"), clock(f.clock));
    setText(document.getElementById("replay-hints"), String(f.hints_released));
    setText(document.getElementById("replay-notes"), f.notes);
    f.code.forEach(function (c) {
      setText(root.querySelector('[data-code-item="' + c.item + '"]'), c.text);
      setText(root.querySelector('[data-code-version="' + c.item + '"]'), String(c.version));
      setText(root.querySelector('[data-cursors-item="' + c.item + '"]'), cursorsText(c.cursors));
    });
    f.answers.forEach(function (a) {
      setText(root.querySelector('[data-answer-item="' + a.item + '"]'), a.text);
    });
    setLink(document.getElementById("replay-prev"), f.nav.prev);
    setLink(document.getElementById("replay-next"), f.nav.next);
    root.querySelectorAll("[data-nav]").forEach(function (a) {
      var nav = a.dataset.nav;
      if (!nav) return;
      var dash = nav.indexOf("-");
      var which = nav.slice(0, dash), cls = nav.slice(dash + 1);
      setLink(a, (which === "next" ? f.nav.next_of : f.nav.prev_of)[cls] || 0);
    });
    var x = String(Math.min(Math.round(f.at_ms * 1000 / duration), 1000));
    root.querySelectorAll(".replay-cursor").forEach(function (l) {
      l.setAttribute("x1", x);
      l.setAttribute("x2", x);
    });
    history.replaceState(null, "", pageURL + "?at=" + f.seq);
  }

  function go(seq) {
    var mine = ++pending;
    fetch(frameURL + "?at=" + encodeURIComponent(seq), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) {
        if (!r.ok) throw new Error("The server answered " + r.status + ".");
        return r.json();
      })
      .then(function (f) { if (mine === pending) show(f); })
      .catch(function (err) { if (mine === pending) setText(momentOut, "This moment could not be loaded: " + err.message); });
  }

  var timer = 0;
  slider.addEventListener("input", function () {
    setText(seqOut, slider.value);
    clearTimeout(timer);
    timer = setTimeout(function () { go(slider.value); }, 60);
  });
  root.addEventListener("click", function (ev) {
    var a = ev.target.closest && ev.target.closest("a[href]");
    if (!a || !root.contains(a)) return;
    var m = /[?&]at=(\d+)/.exec(a.getAttribute("href"));
    if (!m || a.getAttribute("href").indexOf(pageURL) !== 0) return;
    ev.preventDefault();
    go(m[1]);
  });
  var form = slider.form;
  if (form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      go(slider.value);
    });
  }
})();
