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

  // goSpans splits Go source into the spans a highlighter colours, as
  // [start, end, class] with chroma's class names (the site's
  // highlight.css styles them in both themes): comments, strings and
  // runes, numbers, keywords, predeclared types and constants. Text
  // between spans is left plain.
  var goKeywords = /^(break|case|chan|const|continue|default|defer|else|fallthrough|for|func|go|goto|if|import|interface|map|package|range|return|select|struct|switch|type|var)$/;
  var goTypes = /^(any|bool|byte|comparable|complex64|complex128|error|float32|float64|int|int8|int16|int32|int64|rune|string|uint|uint8|uint16|uint32|uint64|uintptr)$/;
  var goConstants = /^(true|false|nil|iota)$/;
  function goSpans(text) {
    var out = [], i = 0, n = text.length;
    function push(a, b, cls) { if (b > a) out.push([a, b, cls]); }
    while (i < n) {
      var ch = text[i], j;
      if (ch === "/" && text[i + 1] === "/") {
        j = text.indexOf("\n", i);
        j = j < 0 ? n : j;
        push(i, j, "c1");
        i = j;
      } else if (ch === "/" && text[i + 1] === "*") {
        j = text.indexOf("*/", i + 2);
        j = j < 0 ? n : j + 2;
        push(i, j, "cm");
        i = j;
      } else if (ch === "`") {
        j = text.indexOf("`", i + 1);
        j = j < 0 ? n : j + 1;
        push(i, j, "s");
        i = j;
      } else if (ch === '"' || ch === "'") {
        j = i + 1;
        while (j < n && text[j] !== ch && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
        j = Math.min(n, j + 1);
        push(i, j, ch === '"' ? "s" : "sc");
        i = j;
      } else if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(text[i + 1] || ""))) {
        j = i + 1;
        while (j < n && /[0-9a-zA-Z_.]/.test(text[j])) j++;
        push(i, j, "m");
        i = j;
      } else if (/[A-Za-z_]/.test(ch)) {
        j = i + 1;
        while (j < n && /[A-Za-z0-9_]/.test(text[j])) j++;
        var word = text.slice(i, j);
        push(i, j, goKeywords.test(word) ? "k" : goTypes.test(word) ? "kt" : goConstants.test(word) ? "kc" : "");
        i = j;
      } else {
        i++;
      }
    }
    return out;
  }

  // pySpans is goSpans for Python: comments, strings (triple-quoted
  // too), numbers, keywords, builtin types and constants.
  var pyKeywords = /^(and|as|assert|async|await|break|class|continue|def|del|elif|else|except|finally|for|from|global|if|import|in|is|lambda|nonlocal|not|or|pass|raise|return|try|while|with|yield)$/;
  var pyTypes = /^(bool|bytes|dict|float|int|list|object|set|str|tuple)$/;
  var pyConstants = /^(True|False|None)$/;
  function pySpans(text) {
    var out = [], i = 0, n = text.length;
    function push(a, b, cls) { if (b > a) out.push([a, b, cls]); }
    while (i < n) {
      var ch = text[i], j;
      if (ch === "#") {
        j = text.indexOf("\n", i);
        j = j < 0 ? n : j;
        push(i, j, "c1");
        i = j;
      } else if ((ch === '"' || ch === "'") && text.substr(i, 3) === ch + ch + ch) {
        j = text.indexOf(ch + ch + ch, i + 3);
        j = j < 0 ? n : j + 3;
        push(i, j, "s");
        i = j;
      } else if (ch === '"' || ch === "'") {
        j = i + 1;
        while (j < n && text[j] !== ch && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
        j = Math.min(n, j + 1);
        push(i, j, "s");
        i = j;
      } else if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(text[i + 1] || ""))) {
        j = i + 1;
        while (j < n && /[0-9a-zA-Z_.]/.test(text[j])) j++;
        push(i, j, "m");
        i = j;
      } else if (/[A-Za-z_]/.test(ch)) {
        j = i + 1;
        while (j < n && /[A-Za-z0-9_]/.test(text[j])) j++;
        var word = text.slice(i, j);
        push(i, j, pyKeywords.test(word) ? "k" : pyTypes.test(word) ? "kt" : pyConstants.test(word) ? "kc" : "");
        i = j;
      } else {
        i++;
      }
    }
    return out;
  }

  // drawCode shows a step's code with each participant's selection
  // marked and their cursor drawn where it was (positions in UTF-16 code
  // units, as JavaScript strings count); the words under the code say
  // the same for screen readers, so the marks are hidden from them.
  function drawCode(el, text, cursors) {
    if (!el) return;
    cursors = cursors || [];
    var key = text + "\u0000" + JSON.stringify(cursors);
    if (el.dataset.drawn === key) return;
    el.dataset.drawn = key;
    var clamp = function (n) { return Math.max(0, Math.min(text.length, n)); };
    var cuts = [0, text.length];
    cursors.forEach(function (c) { cuts.push(clamp(c.anchor), clamp(c.head)); });
    var spans = (el.dataset.lang === "python" ? pySpans : goSpans)(text), next = 0;
    spans.forEach(function (sp) { cuts.push(sp[0], sp[1]); });
    el.classList.add("chroma");
    // classOf is the class of the span a segment starting at a lies in
    // (segments never straddle a span: its ends are cuts).
    function classOf(a) {
      while (next < spans.length && spans[next][1] <= a) next++;
      return next < spans.length && spans[next][0] <= a ? spans[next][2] : "";
    }
    function piece(seg, cls) {
      if (!cls) return document.createTextNode(seg);
      var t = document.createElement("span");
      t.className = cls;
      t.textContent = seg;
      return t;
    }
    cuts = cuts.sort(function (a, b) { return a - b; }).filter(function (n, i, all) { return i === 0 || n !== all[i - 1]; });
    el.textContent = "";
    function carets(at) {
      cursors.forEach(function (c) {
        if (clamp(c.head) !== at) return;
        var s = document.createElement("span");
        s.className = "replay-caret replay-caret-" + c.actor;
        s.setAttribute("aria-hidden", "true");
        s.dataset.who = c.actor === "interviewer" ? "I" : "C";
        el.appendChild(s);
      });
    }
    for (var i = 0; i + 1 < cuts.length; i++) {
      var a = cuts[i], b = cuts[i + 1];
      carets(a);
      var seg = text.slice(a, b);
      var over = cursors.filter(function (c) {
        return Math.min(clamp(c.anchor), clamp(c.head)) <= a && b <= Math.max(clamp(c.anchor), clamp(c.head)) && c.anchor !== c.head;
      });
      var cls = classOf(a);
      if (over.length) {
        var m = document.createElement("mark");
        m.className = "replay-sel " + over.map(function (c) { return "replay-sel-" + c.actor; }).join(" ");
        m.appendChild(piece(seg, cls));
        el.appendChild(m);
      } else {
        el.appendChild(piece(seg, cls));
      }
    }
    carets(text.length);
  }

  var current = null; // the frame shown, once the script has one
  function show(f) {
    current = f;
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
      drawCode(root.querySelector('[data-code-item="' + c.item + '"]'), c.text, c.cursors);
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

  function frame(seq) {
    return fetch(frameURL + "?at=" + encodeURIComponent(seq), { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) {
        if (!r.ok) throw new Error("The server answered " + r.status + ".");
        return r.json();
      });
  }
  function go(seq) {
    var mine = ++pending;
    frame(seq)
      .then(function (f) { if (mine === pending) show(f); })
      .catch(function (err) { if (mine === pending) setText(momentOut, "This moment could not be loaded: " + err.message); });
  }

  // Play: the moments one after another, at the room's own pace times
  // the speed chosen, with no wait longer than maxWait (idle time is
  // skipped). Any other move (the slider, a link) pauses it.
  var maxWait = 2000;
  var playBox = document.getElementById("replay-play");
  var playButton = document.getElementById("replay-play-button");
  var speedSelect = document.getElementById("replay-speed");
  var playing = false;
  var playTimer = 0;
  function setPlaying(on) {
    playing = on;
    clearTimeout(playTimer);
    playButton.textContent = on ? "Pause" : "Play";
    playButton.setAttribute("aria-pressed", on ? "true" : "false");
    // Every moment read out while playing would be noise: the moment
    // shown is announced when it stops.
    momentOut.setAttribute("aria-live", on ? "off" : "polite");
  }
  function playNext() {
    if (!playing || !current) return;
    var next = current.nav.next;
    if (!next) { setPlaying(false); return; }
    var from = current, asked = Date.now(), mine = ++pending;
    frame(next).then(function (f) {
      if (!playing || mine !== pending) return;
      var gap = Math.max(0, f.at_ms - from.at_ms) / Number(speedSelect.value || 1);
      var wait = Math.max(Math.min(gap, maxWait) - (Date.now() - asked), 0);
      playTimer = setTimeout(function () {
        if (!playing || mine !== pending) return;
        show(f);
        playNext();
      }, wait);
    }).catch(function (err) {
      setPlaying(false);
      setText(momentOut, "The replay stopped: this moment could not be loaded: " + err.message);
    });
  }
  if (playBox && playButton && speedSelect) {
    playBox.hidden = false;
    playButton.addEventListener("click", function () {
      if (playing) { setPlaying(false); return; }
      setPlaying(true);
      var start = function () {
        // At the end, play starts again from the beginning.
        if (current && !current.nav.next) {
          var mine = ++pending;
          frame(slider.min).then(function (f) {
            if (!playing || mine !== pending) return;
            show(f);
            playNext();
          });
          return;
        }
        playNext();
      };
      if (current) start();
      else {
        var mine = ++pending;
        frame(slider.value).then(function (f) {
          if (!playing || mine !== pending) return;
          show(f);
          start();
        });
      }
    });
  }
  function pauseForMove() { if (playing) setPlaying(false); }
  // The moment the page was loaded at, drawn with its cursors.
  go(slider.value);

  var timer = 0;
  slider.addEventListener("input", function () {
    pauseForMove();
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
    pauseForMove();
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
