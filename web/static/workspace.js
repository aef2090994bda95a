// The workspace of a problem with code: turns the problem's panels into
// tabs (on narrow screens the code is one more tab), lets the divider
// between problem and code be dragged or moved by keyboard, and holds the
// harness reference back until the candidate reaches Part 2 or starts on
// the code. Without this script the panels read as one document.
(function () {
  "use strict";

  var root = document.querySelector("[data-workspace]");
  if (!root) return;

  var slug = root.getAttribute("data-slug") || "";
  var tablist = root.querySelector('[role="tablist"]');
  var tabs = Array.prototype.slice.call(tablist.querySelectorAll('[role="tab"]'));
  var divider = document.getElementById("ws-divider");
  var wide = window.matchMedia("(min-width: 60rem)");

  // Storage can be refused (private mode, a full quota): the workspace then
  // just forgets between visits.
  function load(key) {
    try {
      return window.localStorage.getItem("faultline:" + key + ":" + slug);
    } catch (e) {
      return null;
    }
  }
  function store(key, value) {
    try {
      window.localStorage.setItem("faultline:" + key + ":" + slug, value);
    } catch (e) {
      /* forgotten next visit */
    }
  }

  function panelOf(tab) {
    return document.getElementById(tab.getAttribute("aria-controls"));
  }
  function isCodeTab(tab) {
    return tab.hasAttribute("data-code-tab");
  }

  // ---- The staged reference: shown once the candidate opens Part 2 or
  // works on the code (the server also says so when it has seen either).
  var referenceOpen = root.getAttribute("data-reference-open") === "true" || load("reference") === "1";
  function openReference() {
    if (referenceOpen) return;
    referenceOpen = true;
    store("reference", "1");
    tabs.forEach(function (tab) {
      if (tab.hasAttribute("data-staged")) tab.hidden = false;
    });
  }

  // ---- Tabs (the WAI-ARIA tabs pattern, selection follows focus).
  var current = null;
  function visibleTabs() {
    return tabs.filter(function (t) {
      return !t.hidden && !(isCodeTab(t) && wide.matches);
    });
  }
  function select(tab, focus) {
    if (!tab) return;
    if (tab.hasAttribute("data-staged")) openReference();
    if (tab.id === "part-2-tab") openReference();
    current = tab;
    tabs.forEach(function (t) {
      var on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      var panel = panelOf(t);
      if (!panel) return;
      // On wide screens the code stays beside every tab.
      panel.hidden = !on && !(isCodeTab(t) && wide.matches);
    });
    if (!isCodeTab(tab)) store("tab", tab.id);
    if (focus) tab.focus();
  }

  tabs.forEach(function (tab) {
    var panel = panelOf(tab);
    if (!panel) {
      tab.hidden = true;
      return;
    }
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", tab.id);
    if (!isCodeTab(tab)) panel.tabIndex = 0;
    if (tab.hasAttribute("data-staged") && !referenceOpen) tab.hidden = true;
    tab.addEventListener("click", function () {
      select(tab, false);
    });
  });
  // The code's panel keeps its own heading as its name.
  var codePanel = document.getElementById("ws-code");
  if (codePanel) codePanel.removeAttribute("aria-labelledby");

  tablist.addEventListener("keydown", function (e) {
    var list = visibleTabs();
    var i = list.indexOf(document.activeElement);
    if (i < 0) return;
    var next = null;
    switch (e.key) {
      case "ArrowRight":
        next = list[(i + 1) % list.length];
        break;
      case "ArrowLeft":
        next = list[(i - 1 + list.length) % list.length];
        break;
      case "Home":
        next = list[0];
        break;
      case "End":
        next = list[list.length - 1];
        break;
      default:
        return;
    }
    e.preventDefault();
    select(next, true);
  });

  // The tab holding the element a URL fragment names (a hint just
  // revealed, the answer material), else the last tab used, else the first.
  function tabHolding(el) {
    for (var i = 0; i < tabs.length; i++) {
      var panel = panelOf(tabs[i]);
      if (panel && el && panel.contains(el)) return tabs[i];
    }
    return null;
  }
  function fromHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    var tab = target && tabHolding(target);
    if (!tab) return false;
    if (isCodeTab(tab) && wide.matches) return false;
    select(tab, false);
    target.scrollIntoView({ block: "start" });
    return true;
  }

  tablist.hidden = false;
  root.setAttribute("data-tabs-ready", "");
  if (!fromHash()) {
    var last = document.getElementById(load("tab") || "");
    select(last && tabs.indexOf(last) >= 0 && !last.hidden ? last : tabs[0], false);
  }
  window.addEventListener("hashchange", fromHash);
  wide.addEventListener("change", function () {
    if (current && isCodeTab(current) && wide.matches) current = tabs[0];
    select(current || tabs[0], false);
  });

  // Working on the code opens the reference: the harness is what it is
  // written against.
  if (codePanel) {
    codePanel.addEventListener("focusin", function (e) {
      if (e.target.closest && e.target.closest(".cm-editor, textarea")) openReference();
    });
  }

  // ---- The divider: the problem's share of the width, in percent.
  if (!divider) return;
  var min = Number(divider.getAttribute("aria-valuemin")) || 25;
  var max = Number(divider.getAttribute("aria-valuemax")) || 65;
  var STEP = 2;

  function setShare(v, keep) {
    v = Math.round(Math.min(max, Math.max(min, v)));
    root.style.setProperty("--ws-left", v + "%");
    divider.setAttribute("aria-valuenow", String(v));
    divider.setAttribute("aria-valuetext", "Problem " + v + "% of the width, code " + (100 - v) + "%");
    if (keep) store("divider", String(v));
    return v;
  }
  function share() {
    return Number(divider.getAttribute("aria-valuenow")) || min;
  }
  var saved = Number(load("divider"));
  setShare(saved >= min && saved <= max ? saved : share(), false);
  divider.hidden = false;

  divider.addEventListener("keydown", function (e) {
    var v = share();
    switch (e.key) {
      case "ArrowLeft":
      case "ArrowUp":
        v -= STEP;
        break;
      case "ArrowRight":
      case "ArrowDown":
        v += STEP;
        break;
      case "PageUp":
        v -= 10;
        break;
      case "PageDown":
        v += 10;
        break;
      case "Home":
        v = min;
        break;
      case "End":
        v = max;
        break;
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
    var box = root.getBoundingClientRect();
    function move(ev) {
      setShare(((ev.clientX - box.left) / box.width) * 100, false);
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
