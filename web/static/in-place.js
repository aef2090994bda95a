// in-place.js: a form marked data-in-place (a hint, a reveal, a plain
// answer) is sent without leaving the page. The server answers as it does
// to a plain form (a redirect to the page, or the page again with the
// reason beside the form); the regions the form names (data-in-place, ids
// separated by spaces) are taken from that page (or from this page drawn
// again, when the redirect leads elsewhere) and put in place of the
// ones here, so the reader keeps their place. Focus goes to the same form's
// button in the new region (the next hint's), else to data-in-place-focus
// (what was revealed). Without this script the forms post and the page
// reloads, as they always did.
(function () {
  "use strict";

  // The region stays and its content is replaced: a live region (the
  // hints) then announces what came, and the region's hidden state, which
  // belongs to the page's own script (the workspace's tabs), is kept.
  function replace(old, fresh) {
    Array.prototype.forEach.call(fresh.attributes, function (a) {
      if (a.name !== "hidden" && old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
    });
    old.replaceChildren.apply(old, Array.prototype.slice.call(fresh.childNodes));
    document.dispatchEvent(new CustomEvent("faultline:replaced", { detail: old }));
    return old;
  }

  // keepText carries text not yet saved (a draft in the answer box) over
  // to the new rendering of a region a reveal replaces.
  function keepText(old, fresh) {
    old.querySelectorAll("textarea[id]").forEach(function (t) {
      var mine = fresh.querySelector("#" + CSS.escape(t.id));
      if (mine && !mine.readOnly && t.value !== mine.value) mine.value = t.value;
    });
  }

  function focusAfter(form, regions) {
    var action = form.getAttribute("action");
    for (var i = 0; i < regions.length; i++) {
      var forms = regions[i].querySelectorAll("form[data-in-place]");
      for (var j = 0; j < forms.length; j++) {
        if (forms[j].getAttribute("action") !== action) continue;
        var button = forms[j].querySelector('button[type="submit"], button:not([type])');
        if (button) { button.focus(); return; }
      }
    }
    var invalid = regions.map(function (r) { return r.querySelector('[aria-invalid="true"]'); }).filter(Boolean)[0];
    if (invalid) { invalid.focus(); return; }
    var target = document.getElementById(form.getAttribute("data-in-place-focus") || "");
    if (target) {
      if (!target.hasAttribute("tabindex") && !/^(A|BUTTON|INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) {
        target.setAttribute("tabindex", "-1");
      }
      target.focus({ preventScroll: true });
      var box = target.getBoundingClientRect();
      if (box.top < 0 || box.top > window.innerHeight) target.scrollIntoView({ block: "nearest" });
    }
  }

  var busy = false;
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-in-place") || ev.defaultPrevented) return;
    if ((form.method || "").toLowerCase() !== "post") return;
    ev.preventDefault();
    if (busy) return;
    busy = true;
    var ids = form.getAttribute("data-in-place").split(/\s+/).filter(Boolean);
    var body = new URLSearchParams(new FormData(form, ev.submitter || null));
    var button = form.querySelector('button[type="submit"], button:not([type])');
    if (button) button.setAttribute("aria-disabled", "true");
    fetch(form.action, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "Accept": "text/html" }
    })
      .then(function (resp) {
        var type = resp.headers.get("Content-Type") || "";
        if (type.indexOf("text/html") !== 0) throw new Error("status " + resp.status);
        return resp.text().then(function (html) { return { ok: resp.ok, html: html, url: resp.url }; });
      })
      .then(function (res) {
        // The server sent us to another page (a rapid-fire question's
        // reveal lands on its set): this page's regions come from this
        // page, drawn again now the form has been taken.
        var to = new URL(res.url, location.href);
        if (!res.ok || (to.pathname === location.pathname && to.search === location.search)) return res;
        return fetch(location.pathname + location.search, { credentials: "same-origin", headers: { "Accept": "text/html" } })
          .then(function (resp) {
            return resp.text().then(function (html) { return { ok: resp.ok, html: html, url: resp.url }; });
          });
      })
      .then(function (res) {
        var doc = new DOMParser().parseFromString(res.html, "text/html");
        // Styles the new rendering needs that this page did not link yet
        // (the tick form's, once an answer is there).
        doc.querySelectorAll('head link[rel="stylesheet"]').forEach(function (l) {
          var href = l.getAttribute("href");
          if (!document.querySelector('head link[rel="stylesheet"][href="' + CSS.escape(href) + '"]')) {
            document.head.appendChild(document.importNode(l, true));
          }
        });
        var pairs = ids.map(function (id) {
          return { old: document.getElementById(id), fresh: doc.getElementById(id) };
        });
        if (pairs.some(function (p) { return !p.old || !p.fresh; })) {
          // The server answered with another page (an error): show it as
          // the plain form would have. The form was sent; never send it twice.
          if (res.ok) { window.location.assign(res.url); return; }
          document.replaceChild(document.adoptNode(doc.documentElement), document.documentElement);
          return;
        }
        var keep = form.hasAttribute("data-in-place-keep-text");
        var placed = pairs.map(function (p) {
          var fresh = document.adoptNode(p.fresh);
          if (keep) keepText(p.old, fresh);
          return replace(p.old, fresh);
        });
        busy = false;
        focusAfter(form, placed);
      })
      .catch(function () {
        busy = false;
        if (button) button.removeAttribute("aria-disabled");
        // No answer we can read (the network, or not a page): post the
        // form as if this script were not here.
        HTMLFormElement.prototype.submit.call(form);
      });
  });
})();
