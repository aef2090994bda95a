// The code workspace on a problem page: mounts the editor over the code
// textarea (when the editor bundle loaded), autosaves the code, and grades
// it with live progress streamed from the server. Without this script the
// textarea and a plain form to Grade still work; with it, a failed request
// never touches the text in the editor.
(function () {
  "use strict";

  var root = document.querySelector("[data-code-workspace]");
  if (!root) return;

  var SAVE_AFTER_MS = 2000; // quiet time after a change before autosaving
  var RETRY_MAX_MS = 30000;
  var ANNOUNCE_EVERY_MS = 1500; // progress text changes at most this often

  var textarea = document.getElementById("code-editor-textarea");
  var form = textarea.form;
  var gradeButton = document.getElementById("grade-button");
  var checkButton = document.getElementById("check-button");
  var checkEl = document.getElementById("check-report");
  var checksEl = document.getElementById("grade-checks");
  var saveButton = document.getElementById("save-button");
  var resetButton = document.getElementById("reset-starter");
  var saveStatus = document.getElementById("code-save-status");
  var progressEl = document.getElementById("grade-progress");
  var busyEl = document.getElementById("grade-busy");
  var reportEl = document.getElementById("grade-report");
  var diagBox = document.getElementById("code-diagnostics");
  var diagList = diagBox.querySelector("ul");
  var saveURL = root.getAttribute("data-save-url");
  var gradeURL = root.getAttribute("data-grade-url");
  var checkURL = root.getAttribute("data-check-url");
  var starter = readJSON("code-starter", "");
  // The language of the code in the editor (a problem answered in Go or
  // Python has a switch): every save, Check and Grade says it.
  var lang = root.getAttribute("data-lang") || "go";

  function readJSON(id, fallback) {
    var el = document.getElementById(id);
    if (!el) return fallback;
    try {
      return JSON.parse(el.textContent);
    } catch (e) {
      return fallback;
    }
  }

  // Links meant for readers without JavaScript (follow a run on its own
  // page) are replaced by the live progress here.
  root.querySelectorAll(".no-js-only").forEach(function (el) {
    el.hidden = true;
  });

  // ---- The editor, or the plain textarea when the bundle is missing.
  var editor = null;
  if (window.FaultlineEditor && typeof window.FaultlineEditor.mount === "function") {
    try {
      editor = window.FaultlineEditor.mount(textarea, { onChange: changed, describedBy: "editor-help", language: lang });
    } catch (err) {
      editor = null;
      if (window.console) console.error("code workspace: the editor did not mount", err);
    }
  }
  if (!editor) textarea.addEventListener("input", changed);
  // The handle, for tests and the console: the same object mount returned.
  if (editor) textarea.faultlineEditor = editor;

  function getText() {
    return editor ? editor.getValue() : textarea.value;
  }

  function focusCode() {
    if (editor) editor.focus();
    else textarea.focus();
  }

  function goToLine(line) {
    if (editor) {
      editor.goToLine(line);
      return;
    }
    var lines = textarea.value.split("\n");
    var n = Math.min(Math.max(1, line), lines.length);
    var at = 0;
    for (var i = 0; i < n - 1; i++) at += lines[i].length + 1;
    textarea.focus();
    textarea.setSelectionRange(at, at);
  }

  // ---- Editor settings, kept in this browser: wrapping and text size
  // (editor-tools.js). And the comparison with the starter or the last
  // graded code, from a bundle loaded the first time it is asked for.
  var tools = document.getElementById("code-tools");
  var diffStarter = document.getElementById("diff-starter");
  var diffGraded = document.getElementById("diff-graded");
  var diffStatus = document.getElementById("diff-status");
  var mergeSrc = root.getAttribute("data-merge-src");
  var lastGraded = readJSON("code-last-graded", "") || "";

  var comparing = null; // the pressed comparison button, or null
  var mergeLoading = null;

  function loadMerge() {
    if (window.FaultlineEditor.comparison) return Promise.resolve();
    if (mergeLoading) return mergeLoading;
    mergeLoading = new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = mergeSrc;
      var nonced = document.querySelector("script[nonce]");
      if (nonced && nonced.nonce) s.nonce = nonced.nonce;
      s.onload = function () {
        if (window.FaultlineEditor.comparison) resolve();
        else reject(new Error("the comparison bundle defined nothing"));
      };
      s.onerror = function () {
        reject(new Error("the comparison bundle did not load"));
      };
      document.head.appendChild(s);
    }).catch(function (err) {
      mergeLoading = null;
      throw err;
    });
    return mergeLoading;
  }

  function compare(button, original, what) {
    var off = comparing === button;
    [diffStarter, diffGraded].forEach(function (b) {
      if (b) b.setAttribute("aria-pressed", "false");
    });
    if (off) {
      comparing = null;
      editor.setComparison(null);
      diffStatus.textContent = "";
      return;
    }
    comparing = button;
    button.setAttribute("aria-pressed", "true");
    diffStatus.textContent = "Loading the comparison…";
    loadMerge()
      .then(function () {
        if (comparing !== button) return;
        editor.setComparison(window.FaultlineEditor.comparison(original));
        diffStatus.textContent =
          "Showing your changes " + what + ": removed lines struck through above, added lines tinted. Press the button again to hide them.";
      })
      .catch(function () {
        comparing = null;
        button.setAttribute("aria-pressed", "false");
        diffStatus.textContent = "The comparison could not be loaded. Reload the page to try again.";
      });
  }

  if (editor && tools && window.FaultlineEditorTools) {
    window.FaultlineEditorTools.attach(editor, tools);
    diffStarter.addEventListener("click", function () {
      compare(diffStarter, starter, "from the starter");
    });
    diffGraded.addEventListener("click", function () {
      compare(diffGraded, lastGraded, "since your last Grade");
    });
  }

  // gradedNow records the code a finished Grade graded, for the comparison.
  function gradedNow(text) {
    lastGraded = text;
    if (diffGraded) diffGraded.hidden = !editor;
    if (comparing === diffGraded && window.FaultlineEditor.comparison) {
      editor.setComparison(window.FaultlineEditor.comparison(lastGraded));
    }
  }

  // ---- Autosave: after a quiet moment, on leaving the editor, and when
  // the page is hidden. A failure keeps the text and retries, backing off.
  var lastSaved = getText();
  var saveTimer = 0;
  var saving = false;
  var retryDelay = SAVE_AFTER_MS;
  var saveBlocked = ""; // a 4xx for this exact text: retrying will not help

  function setSaveStatus(text) {
    if (saveStatus.textContent !== text) saveStatus.textContent = text;
  }

  function changed() {
    saveBlocked = "";
    if (getText() !== lastSaved) setSaveStatus("Not saved yet");
    scheduleSave(SAVE_AFTER_MS);
  }

  function scheduleSave(ms) {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, ms);
  }

  // postCode sends the code, and any extra form fields, as a form post.
  function postCode(url, text, extra) {
    var fields = new URLSearchParams({ code: text, lang: lang });
    for (var k in extra || {}) fields.set(k, extra[k]);
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
      },
      body: fields.toString(),
    });
  }

  function errorOf(resp) {
    return resp
      .json()
      .then(function (d) {
        return (d && d.error) || "";
      })
      .catch(function () {
        return "";
      });
  }

  function save() {
    clearTimeout(saveTimer);
    saveTimer = 0;
    var text = getText();
    if (saving || text === lastSaved || text === saveBlocked) return;
    saving = true;
    setSaveStatus("Saving…");
    postCode(saveURL, text)
      .then(function (resp) {
        if (resp.ok) {
          lastSaved = text;
          retryDelay = SAVE_AFTER_MS;
          return;
        }
        if (resp.status === 429) {
          // Too much saved from this address just now: the text stays
          // here and is sent again when the server says.
          var wait = parseInt(resp.headers.get("Retry-After"), 10) * 1000;
          return errorOf(resp).then(function (msg) {
            setSaveStatus("Not saved: " + (msg ? msg + " It is sent again then." : "the server is taking fewer saves for a moment; retrying."));
            scheduleSave(wait > 0 ? wait : retryDelay);
          });
        }
        if (resp.status >= 400 && resp.status < 500) {
          saveBlocked = text;
          return errorOf(resp).then(function (msg) {
            setSaveStatus("Not saved: " + (msg || "the server refused the code (" + resp.status + ")."));
          });
        }
        throw new Error("status " + resp.status);
      })
      .catch(function () {
        setSaveStatus("Not saved: retrying");
        scheduleSave(retryDelay);
        retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
      })
      .then(function () {
        saving = false;
        var now = getText();
        if (now === lastSaved) setSaveStatus("Saved");
        else if (now !== saveBlocked && !saveTimer) scheduleSave(SAVE_AFTER_MS);
      });
  }

  // Leaving the editor saves at once.
  form.addEventListener("focusout", function (e) {
    if (e.target === textarea || (editor && editor.view && editor.view.dom.contains(e.target))) save();
  });
  // A closing or hidden page gets one last save that outlives it.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "hidden") return;
    var text = getText();
    if (text === lastSaved || text === saveBlocked || !navigator.sendBeacon) return;
    if (navigator.sendBeacon(saveURL, new URLSearchParams({ code: text, lang: lang }))) lastSaved = text;
  });

  // ---- The language switch: a form asking for the page in the chosen
  // language. The code in the editor is saved as this language's draft
  // before the page changes, so neither language's draft is lost; a
  // refused save keeps the page and says why. A click with the pointer
  // switches at once; from the keyboard the arrows only choose, and the
  // button (or Enter) switches, so choosing never reloads under the keys.
  var langForm = document.getElementById("lang-switch-form");
  var langBox = document.getElementById("code-lang"); // the radios, in the toolbar
  if (langForm && langBox) {
    var switching = false;
    var switchTo = function () {
      var picked = langBox.querySelector('input[name="lang"]:checked');
      if (!picked || picked.value === lang || switching) return;
      switching = true;
      clearTimeout(saveTimer);
      var text = getText();
      var go = function () {
        window.location.assign(langForm.getAttribute("action").replace(/#.*$/, "") + "?lang=" + encodeURIComponent(picked.value) + "#code-lang");
      };
      if (text === lastSaved) {
        go();
        return;
      }
      setSaveStatus("Saving before switching…");
      postCode(saveURL, text)
        .then(function (resp) {
          if (resp.ok) {
            lastSaved = text;
            go();
            return;
          }
          return errorOf(resp).then(function (msg) {
            throw new Error(msg || "the server refused the code (" + resp.status + ")");
          });
        })
        .catch(function (err) {
          switching = false;
          setSaveStatus("Not switched: your code could not be saved (" + err.message + "). It is still in the editor.");
          var current = langBox.querySelector('input[name="lang"][value="' + lang + '"]');
          if (current) current.checked = true;
        });
    };
    langForm.addEventListener("submit", function (e) {
      e.preventDefault();
      switchTo();
    });
    langBox.addEventListener("click", function (e) {
      if (e.target.name === "lang" && e.detail > 0) switchTo();
    });
    // Arrived by a switch: focus goes back to the chosen language, once
    // the browser has gone to the fragment (which moves focus itself).
    if (window.location.hash === "#code-lang") {
      window.addEventListener("load", function () {
        setTimeout(function () {
          var checked = langBox.querySelector('input[name="lang"]:checked');
          if (checked && document.activeElement === document.body) checked.focus();
        }, 0);
      });
    }
  }

  // ---- Reset to the starter: asks first; in the editor it is one change
  // that Ctrl-Z undoes.
  if (resetButton) {
    resetButton.hidden = false;
    resetButton.addEventListener("click", function () {
      if (getText() === starter) {
        setSaveStatus("The code is already the starter code.");
        return;
      }
      var how = editor ? " You can undo it with Ctrl-Z (Cmd-Z on a Mac) in the editor." : "";
      if (!window.confirm("Replace your code with the starter code?" + how)) return;
      if (editor) {
        editor.setValue(starter); // onChange schedules the save
      } else {
        textarea.focus();
        textarea.select();
        // insertText keeps the textarea's own undo history where supported.
        if (!document.execCommand || !document.execCommand("insertText", false, starter)) textarea.value = starter;
        changed();
      }
      markDiagnostics([]);
      focusCode();
    });
  }

  // ---- Grading.
  var running = false;
  var gradingText = null; // the code of the Grade being followed, when known
  var stream = null;
  var announceTimer = 0;
  var lastAnnounce = 0;
  var pendingProgress = "";

  function setProgress(text, now) {
    clearTimeout(announceTimer);
    announceTimer = 0;
    pendingProgress = text;
    var wait = lastAnnounce + ANNOUNCE_EVERY_MS - Date.now();
    if (now || wait <= 0) {
      progressEl.textContent = text;
      lastAnnounce = Date.now();
      return;
    }
    announceTimer = setTimeout(function () {
      announceTimer = 0;
      progressEl.textContent = pendingProgress;
      lastAnnounce = Date.now();
    }, wait);
  }

  function setRunning(on) {
    running = on;
    if (!gradeButton) return;
    // aria-disabled rather than disabled: the button keeps keyboard focus.
    if (on) {
      gradeButton.setAttribute("aria-disabled", "true");
      gradeButton.textContent = "Grading…";
    } else {
      gradeButton.removeAttribute("aria-disabled");
      gradeButton.textContent = "Grade";
    }
  }

  function progressText(d) {
    var failed = d.failed > 0 ? " (" + d.failed + " failed so far)" : "";
    if (d.total > 0) return "Grading… " + d.finished + " of " + d.total + " scenarios finished" + failed;
    return "Grading… " + d.finished + " scenarios finished" + failed;
  }

  function parse(e) {
    try {
      return JSON.parse(e.data);
    } catch (err) {
      return {};
    }
  }

  function follow(eventsURL, runURL) {
    if (stream) stream.close();
    setRunning(true);
    var es = new EventSource(eventsURL);
    stream = es;
    var ended = false;
    function end() {
      ended = true;
      es.close();
      if (stream === es) stream = null;
      setRunning(false);
    }
    es.addEventListener("progress", function (e) {
      setProgress(progressText(parse(e)));
    });
    es.addEventListener("report", function (e) {
      var d = parse(e);
      end();
      if (gradingText !== null) gradedNow(gradingText);
      gradingText = null;
      showReport(d);
    });
    es.addEventListener("busy", function (e) {
      var d = parse(e);
      end();
      setProgress("Not graded.", true);
      busyEl.textContent =
        d.message || "The grader is busy; try again in " + d.retry_after_s + " s. Your code is saved.";
    });
    es.addEventListener("system-error", function (e) {
      var d = parse(e);
      end();
      setProgress(d.message || "Grading failed on the server. Your code is saved: grade it again.", true);
    });
    es.addEventListener("error", function () {
      // The browser reconnects by itself (the server resumes after the
      // Last-Event-ID it sends); a closed stream means the run cannot be
      // followed here.
      if (ended || es.readyState !== EventSource.CLOSED) return;
      end();
      progressEl.textContent = "";
      var p = document.createTextNode("Lost the connection to the grader. Your code is saved. ");
      progressEl.appendChild(p);
      if (runURL) {
        var a = document.createElement("a");
        a.href = runURL;
        a.textContent = "Open this run's page for its report";
        progressEl.appendChild(a);
      }
    });
  }

  function showReport(d) {
    reportEl.innerHTML = d.html || "";
    // A Grade supersedes the quick Check before it.
    checkEl.hidden = true;
    checkEl.textContent = "";
    if (checksEl) checksEl.hidden = false;
    setProgress(d.summary || "Graded.", true);
    markDiagnostics(d.diagnostics || []);
    var heading = reportEl.querySelector("h2");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus();
    }
  }

  // markDiagnostics marks compile errors and forbidden imports at their
  // lines in the editor and lists them, each a button to its line.
  function markDiagnostics(list) {
    diagList.textContent = "";
    var placed = list.filter(function (d) {
      return d && d.line > 0;
    });
    if (editor) {
      if (placed.length) {
        editor.setDiagnostics(
          placed.map(function (d) {
            return { line: d.line, column: d.column || 1, message: d.message, severity: "error" };
          })
        );
      } else {
        editor.clearDiagnostics();
      }
    }
    list.forEach(function (d) {
      var li = document.createElement("li");
      if (d.line > 0) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "link-button";
        b.textContent = "Line " + d.line + (d.column ? ", column " + d.column : "") + ": " + d.message;
        b.addEventListener("click", function () {
          goToLine(d.line);
        });
        li.appendChild(b);
      } else {
        li.textContent = d.message;
      }
      diagList.appendChild(li);
    });
    diagBox.hidden = list.length === 0;
  }

  function grade() {
    if (running || checking) return;
    setRunning(true);
    busyEl.textContent = "";
    setProgress("Sending your code to the grader…", true);
    clearTimeout(saveTimer);
    var text = getText();
    var seedInput = document.getElementById("grade-seed");
    postCode(gradeURL, text, seedInput && seedInput.value.trim() ? { seed: seedInput.value.trim() } : {})
      .then(function (resp) {
        return resp
          .json()
          .catch(function () {
            return {};
          })
          .then(function (d) {
            if (resp.status === 202 || (resp.status === 409 && d.events_url)) {
              gradingText = resp.status === 202 ? text : null;
              lastSaved = text; // Grade saves the code before anything else
              setSaveStatus("Saved");
              if (resp.status === 409) setProgress(d.error, true);
              follow(d.events_url, d.run_url);
              return;
            }
            setRunning(false);
            if (resp.status === 413) saveBlocked = text;
            if (resp.status === 429) scheduleSave(retryDelay); // not saved: try again later
            setProgress("Not graded: " + (d.error || "the server answered " + resp.status + ". Your code is still here."), true);
          });
      })
      .catch(function () {
        setRunning(false);
        setProgress("Not graded: the server could not be reached. Your code is still here; try again.", true);
        scheduleSave(retryDelay);
      });
  }

  // ---- Check: a few quick scenarios, answered at once and not kept in
  // the history. Focus stays where it was, so Ctrl-Enter in the editor
  // lets the candidate carry on typing; the status line says the result.
  var checking = false;

  function setChecking(on) {
    checking = on;
    if (!checkButton) return;
    if (on) {
      checkButton.setAttribute("aria-disabled", "true");
      checkButton.textContent = "Checking…";
    } else {
      checkButton.removeAttribute("aria-disabled");
      checkButton.textContent = "Check";
    }
  }

  function check() {
    if (!checkButton || checking || running) return;
    setChecking(true);
    busyEl.textContent = "";
    setProgress("Checking your code against a few quick scenarios…", true);
    clearTimeout(saveTimer);
    var text = getText();
    postCode(checkURL, text)
      .then(function (resp) {
        return resp
          .json()
          .catch(function () {
            return {};
          })
          .then(function (d) {
            setChecking(false);
            if (!resp.ok) {
              if (resp.status === 413) saveBlocked = text;
              setProgress("Not checked: " + (d.error || "the server answered " + resp.status + ". Your code is still here."), true);
              return;
            }
            lastSaved = text; // Check saves the code first
            setSaveStatus("Saved");
            // A quick look, not the graded report: its heading says so.
            checkEl.innerHTML = d.html || "";
            checkEl.hidden = false;
            if (checksEl) checksEl.hidden = false;
            setProgress(d.summary || "Checked.", true);
            markDiagnostics(d.diagnostics || []);
          });
      })
      .catch(function () {
        setChecking(false);
        setProgress("Not checked: the server could not be reached. Your code is still here; try again.", true);
        scheduleSave(retryDelay);
      });
  }

  if (checkButton) {
    checkButton.addEventListener("click", function (e) {
      e.preventDefault();
      check();
    });
  }
  // Ctrl-Enter (Cmd-Enter on a Mac) anywhere in the workspace runs Check;
  // caught before the editor, whose own Mod-Enter inserts a line.
  root.addEventListener(
    "keydown",
    function (e) {
      if (e.key !== "Enter" || !(e.ctrlKey || e.metaKey) || e.altKey || e.shiftKey || !checkButton) return;
      e.preventDefault();
      e.stopPropagation();
      check();
    },
    true
  );

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (gradeButton) grade();
    else save();
  });
  if (gradeButton) {
    gradeButton.addEventListener("click", function (e) {
      if (running) e.preventDefault(); // aria-disabled: a press does nothing
    });
  }
  if (saveButton) {
    saveButton.addEventListener("click", function () {
      saveBlocked = "";
    });
  }

  // ---- Back on the page: mark the last report's diagnostics, and follow a
  // run still going.
  markDiagnostics(readJSON("grade-diagnostics-data", []) || []);
  var runningEvents = root.getAttribute("data-running-events");
  if (runningEvents) follow(runningEvents, runningEvents.replace(/\/events$/, ""));
})();
