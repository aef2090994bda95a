// What-if replays in place (internal/web/grading_whatif.go): a failing
// scenario's what-if form is sent by fetch and the part that answers takes
// the place of the one asked from; focus goes to what the answer says
// first (a refusal, what was wrong with the choice, or the result). It is
// loaded by grade-report.js the first time a what-if is opened. Without it
// the form and its answer are a page of their own.
(function () {
  "use strict";
  if (window.FaultlineWhatIf) return;
  window.FaultlineWhatIf = { replay: replay };

  // partURL is url asking for the part alone.
  function partURL(url) {
    var u = new URL(url, location.href);
    u.searchParams.set("part", "1");
    return u.pathname + u.search;
  }

  function replay(section, url) {
    if (section.getAttribute("aria-busy") === "true") return;
    section.setAttribute("aria-busy", "true");
    var button = section.querySelector("form[data-what-if-form] button");
    var said = section.querySelector("[data-what-if-status]");
    if (button) button.setAttribute("aria-disabled", "true");
    if (said) said.textContent = "Replaying the run with this change…";
    fetch(partURL(url), { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (resp) {
        return resp.text();
      })
      .then(function (html) {
        var box = document.createElement("div");
        box.innerHTML = html;
        var part = box.querySelector("[data-what-if]");
        if (!part) throw new Error(url + ": no what-if part");
        section.replaceWith(part);
        var first = part.querySelector("[data-what-if-said], [data-what-if-result] [tabindex]") || part.querySelector("[tabindex]");
        first.focus();
      })
      .catch(function (err) {
        console.warn("what-if:", err);
        section.removeAttribute("aria-busy");
        if (button) button.removeAttribute("aria-disabled");
        if (said) said.textContent = "The replay could not be asked for (the connection?): try again.";
      });
  }

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-what-if-form]")) return;
    e.preventDefault();
    var section = form.closest("[data-what-if]");
    var query = new URLSearchParams(new FormData(form)).toString();
    replay(section, form.getAttribute("action") + "?" + query);
  });
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[data-what-if-retry]");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    replay(a.closest("[data-what-if]"), a.getAttribute("href"));
  });
})();
