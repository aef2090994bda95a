// results-pane.js: on a wide screen the grade report sits under the editor
// in the code's column. A divider (the WAI-ARIA window splitter: arrows,
// Page Up/Down, Home/End, Enter for full height) sets the results' share
// of the column, and a button gives them the whole column and back. Both
// are kept in this browser for every problem. The editor keeps its
// minimum height whatever the share (code-workspace.css): the results
// give way first. Without this script the results keep their place.
(function () {
  "use strict";

  var ws = document.querySelector(".ws-code .code-workspace");
  var divider = document.getElementById("ws-results-divider");
  var bar = document.getElementById("ws-results-bar");
  var full = document.getElementById("results-full");
  var results = document.getElementById("ws-results");
  if (!ws || !divider || !bar || !full || !results) return;

  var KEY = "faultline:results-pane";
  var min = Number(divider.getAttribute("aria-valuemin")) || 15;
  var max = Number(divider.getAttribute("aria-valuemax")) || 85;
  var STEP = 5;

  // Storage can be refused (private mode, a full quota): the pane then
  // just forgets between visits.
  function load() {
    try {
      var v = JSON.parse(window.localStorage.getItem(KEY) || "{}");
      return v && typeof v === "object" ? v : {};
    } catch (e) {
      return {};
    }
  }
  function keep() {
    try {
      window.localStorage.setItem(KEY, JSON.stringify({ share: share(), full: isFull() }));
    } catch (e) {
      /* forgotten next visit */
    }
  }

  function share() {
    return Number(divider.getAttribute("aria-valuenow")) || min;
  }
  // apply sets the share, then takes back what the column cannot hold:
  // the editor keeps its minimum height (code-workspace.css), so a share
  // too large shows as the column overflowing.
  function apply(v) {
    ws.style.setProperty("--ws-results", v + "%");
    ws.setAttribute("data-results-sized", "");
    var column = ws.clientHeight;
    if (isFull() || !column || !results.querySelector(".grade-report")) return v;
    for (var i = 0; i < 3 && v > min; i++) {
      var form = ws.querySelector(".code-form");
      var over = Math.max(ws.scrollHeight - column, form ? form.scrollHeight - form.clientHeight : 0);
      if (over <= 0) break;
      v = Math.max(min, v - Math.ceil((over / column) * 100));
      ws.style.setProperty("--ws-results", v + "%");
    }
    return v;
  }
  function setShare(v, save) {
    v = apply(Math.round(Math.min(max, Math.max(min, v))));
    divider.setAttribute("aria-valuenow", String(v));
    divider.setAttribute("aria-valuetext", "Results " + v + "% of the height");
    if (save) keep();
    return v;
  }

  function isFull() {
    return ws.hasAttribute("data-results-full");
  }
  function setFull(on, save) {
    if (on) ws.setAttribute("data-results-full", "");
    else ws.removeAttribute("data-results-full");
    full.setAttribute("aria-pressed", on ? "true" : "false");
    full.textContent = on ? "Show the code again" : "Results full height";
    if (save) keep();
  }

  var saved = load();
  var start = Number(saved.share);
  setShare(start >= min && start <= max ? start : share(), false);
  setFull(saved.full === true, false);
  divider.hidden = false;
  bar.hidden = false;
  // A report arriving, or a smaller window, may leave less room: the share
  // is clamped again so the editor keeps its height.
  function reclamp() {
    if (!isFull()) setShare(share(), false);
  }
  window.addEventListener("resize", reclamp);
  new MutationObserver(reclamp).observe(results, { childList: true, subtree: true });

  // Enter on the divider moves focus to the button; the same key's
  // keypress must not press it back.
  var enterHeld = false;
  document.addEventListener("keyup", function (e) {
    if (e.key === "Enter") enterHeld = false;
  });
  full.addEventListener("click", function (e) {
    if (enterHeld && e.detail === 0) return;
    setFull(!isFull(), true);
    full.focus();
  });
  // Escape in full-height results brings the code back.
  results.addEventListener("keydown", function (e) {
    if (e.key !== "Escape" || !isFull() || e.defaultPrevented) return;
    e.preventDefault();
    setFull(false, true);
    full.focus();
  });

  divider.addEventListener("keydown", function (e) {
    var v = share();
    switch (e.key) {
      case "ArrowUp":
        v += STEP;
        break;
      case "ArrowDown":
        v -= STEP;
        break;
      case "PageUp":
        v += 20;
        break;
      case "PageDown":
        v -= 20;
        break;
      case "Home":
        v = min;
        break;
      case "End":
        v = max;
        break;
      case "Enter":
        e.preventDefault();
        enterHeld = true;
        setFull(true, true);
        full.focus();
        return;
      default:
        return;
    }
    e.preventDefault();
    setShare(v, true);
  });

  divider.addEventListener("pointerdown", function (e) {
    if (e.button !== 0) return;
    e.preventDefault();
    divider.setPointerCapture(e.pointerId);
    var box = ws.getBoundingClientRect();
    function move(ev) {
      setShare(((box.bottom - ev.clientY) / box.height) * 100, false);
    }
    function up(ev) {
      divider.releasePointerCapture(ev.pointerId);
      divider.removeEventListener("pointermove", move);
      divider.removeEventListener("pointerup", up);
      divider.removeEventListener("pointercancel", up);
      setShare(share(), true);
    }
    divider.addEventListener("pointermove", move);
    divider.addEventListener("pointerup", up);
    divider.addEventListener("pointercancel", up);
  });
})();
