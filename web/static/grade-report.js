// The grade report's behaviour on a page: links inside a report open the
// closed section they point to, a report whose code is no longer the code
// in the editor says so, and pressing Grade clears the old report so it
// cannot be mistaken for the new one. The report reads fine without this
// script: every section opens by hand.
(function () {
  "use strict";

  var CHECK_EVERY_MS = 2000; // backstop for edits no DOM event announces

  // ---- Links to a closed section open it (and the sections around it).
  function reveal(el) {
    for (var d = el; d; d = d.parentElement) {
      if (d.tagName === "DETAILS" && d.closest("[data-grade-report]")) d.open = true;
    }
  }

  function revealHash() {
    if (location.hash.length < 2) return;
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (el && el.closest("[data-grade-report]")) reveal(el);
  }

  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[data-opens-details]");
    if (!a) return;
    var id = (a.getAttribute("href") || "").slice(1);
    var target = id && document.getElementById(id);
    if (target) reveal(target);
  });
  window.addEventListener("hashchange", revealHash);
  revealHash();

  // ---- Parts loaded when opened. A report of a stored run leaves most
  // scenarios' runs out (internal/web newRunReportView): such a scenario
  // names its part (data-scenario-src) and links to it as a page. Opening
  // it, or that link, brings the part in place; a failed fetch leaves the
  // link, which still works.
  function loadScenario(details) {
    var src = details.getAttribute("data-scenario-src");
    if (!src || details.hasAttribute("data-loading")) return;
    var body = details.querySelector(".grade-scenario-body");
    if (!body) return;
    details.setAttribute("data-loading", "");
    details.setAttribute("aria-busy", "true");
    fetch(src, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (resp) {
        return resp.text().then(function (html) {
          var box = document.createElement("div");
          box.innerHTML = html;
          // A passed scenario's run is replayed when asked for; a busy
          // grader answers why not, and the scenario keeps its link.
          var refused = box.querySelector(".grade-replay-refused");
          if (!resp.ok && refused) {
            var old = body.querySelector(".grade-replay-note");
            if (old) old.remove();
            var note = refused.parentNode;
            note.className = "grade-replay-note";
            body.appendChild(note);
            return null;
          }
          if (!resp.ok) throw new Error(src + ": " + resp.status);
          return box;
        });
      })
      .then(function (box) {
        if (!box) return;
        var part = box.querySelector(".grade-scenario-body");
        if (!part) throw new Error(src + ": no scenario part");
        // Keep focus where it was: on the summary, or on the link, which
        // goes; then on the part's first link or the summary.
        var hadFocus = body.contains(document.activeElement);
        body.replaceWith(part);
        details.removeAttribute("data-scenario-src");
        if (hadFocus) details.querySelector("summary").focus();
      })
      .catch(function (err) {
        console.warn("grade report:", err);
      })
      .then(function () {
        details.removeAttribute("data-loading");
        details.removeAttribute("aria-busy");
      });
  }
  document.addEventListener(
    "toggle",
    function (e) {
      var d = e.target;
      if (d.tagName === "DETAILS" && d.open && d.hasAttribute("data-scenario-src")) loadScenario(d);
    },
    true
  );
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("[data-scenario-link] a");
    var d = a && a.closest("details[data-scenario-src]");
    if (!d || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    loadScenario(d);
  });
  // A report already open when this runs (a link to a scenario's anchor).
  Array.prototype.forEach.call(document.querySelectorAll("details[open][data-scenario-src]"), loadScenario);

  // ---- What-if replays: a failing scenario's link to them brings their
  // part in place, with the script and stylesheet it names (what-if.js
  // sends its form). A failed fetch follows the link as a page.
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("[data-what-if-link] a");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    var p = a.parentNode;
    if (p.getAttribute("aria-busy")) return;
    p.setAttribute("aria-busy", "true");
    fetch(a.getAttribute("href") + "?part=1", { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (resp) {
        return resp.text();
      })
      .then(function (html) {
        var box = document.createElement("div");
        box.innerHTML = html;
        var part = box.querySelector("[data-what-if]");
        if (!part) throw new Error("no what-if part");
        var css = part.getAttribute("data-what-if-css");
        if (css && !document.querySelector('link[href="' + css + '"]')) {
          var l = document.createElement("link");
          l.rel = "stylesheet";
          l.href = css;
          document.head.appendChild(l);
        }
        var js = part.getAttribute("data-what-if-script");
        if (js && !window.FaultlineWhatIf && !document.querySelector('script[src="' + js + '"]')) {
          var s = document.createElement("script");
          s.src = js;
          var nonced = document.querySelector("script[nonce]");
          if (nonced && nonced.nonce) s.nonce = nonced.nonce;
          document.head.appendChild(s);
        }
        p.replaceWith(part);
        part.querySelector("[tabindex]").focus();
      })
      .catch(function (err) {
        console.warn("grade report:", err);
        location.href = a.href;
      });
  });

  // ---- Stale reports. The report carries a fingerprint of the code it
  // graded (FNV-1a, 32 bits, of the UTF-8 text: sourceHash in
  // internal/web/grade_report.go computes the same).
  var workspace = document.querySelector("[data-code-workspace]");
  if (!workspace) return;
  var textarea = document.getElementById("code-editor-textarea");
  var reportBox = document.getElementById("grade-report");
  if (!textarea || !reportBox) return;

  function fingerprint(text) {
    var bytes = new TextEncoder().encode(text);
    var h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) {
      h ^= bytes[i];
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h.toString(16);
  }

  function currentCode() {
    var ed = textarea.faultlineEditor;
    return ed && typeof ed.getValue === "function" ? ed.getValue() : textarea.value;
  }

  var lastText = null;
  var lastHash = "";
  function check() {
    var report = reportBox.querySelector("[data-grade-report][data-source-hash]");
    if (!report) return;
    var want = report.getAttribute("data-source-hash");
    if (!want) return;
    var text = currentCode();
    if (text !== lastText) {
      lastText = text;
      lastHash = fingerprint(text);
    }
    var stale = lastHash !== want;
    var note = report.querySelector("[data-grade-stale]");
    if (note && note.hidden === stale) note.hidden = !stale;
    if (stale) report.setAttribute("data-stale", "");
    else report.removeAttribute("data-stale");
  }

  var pending = 0;
  function soon() {
    if (!pending) pending = setTimeout(function () { pending = 0; check(); }, 150);
  }
  ["input", "keyup", "paste", "cut", "drop", "click"].forEach(function (type) {
    workspace.addEventListener(type, soon);
  });
  workspace.addEventListener("faultline:code-change", soon);
  new MutationObserver(soon).observe(reportBox, { childList: true });
  setInterval(function () {
    if (document.visibilityState === "visible") check();
  }, CHECK_EVERY_MS);
  check();

  // ---- A new grade clears the old report. This listens on the document
  // in the capture phase, before the workspace's own submit handler marks
  // Grade busy, so a press while a run is going (which does nothing) keeps
  // the report.
  var form = textarea.form;
  var gradeButton = document.getElementById("grade-button");
  if (form && gradeButton) {
    document.addEventListener(
      "submit",
      function (e) {
        if (e.target !== form || (e.submitter && e.submitter !== gradeButton)) return;
        if (gradeButton.getAttribute("aria-disabled") === "true") return;
        reportBox.textContent = "";
      },
      true
    );
  }
})();
