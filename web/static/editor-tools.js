// The editor's settings, kept in this browser and shared by every editor
// the site mounts (a problem's workspace, a live room's shared code):
// line wrapping and text size. The page holds the controls (editorTools
// in code_workspace.templ); attach wires them to a mounted editor.
(function () {
  "use strict";

  // Storage can be refused (private mode, a full quota): the settings are
  // then forgotten between visits.
  function pref(key) {
    try {
      return window.localStorage.getItem("faultline:editor:" + key);
    } catch (e) {
      return null;
    }
  }
  function setPref(key, value) {
    try {
      window.localStorage.setItem("faultline:editor:" + key, value);
    } catch (e) {
      /* not kept */
    }
  }

  window.FaultlineEditorTools = {
    // attach shows the controls in tools and applies the kept settings.
    attach: function (editor, tools) {
      var wrapButton = tools.querySelector("#wrap-toggle");
      var sizeSelect = tools.querySelector("#font-size");
      tools.hidden = false;
      if (pref("wrap") === "1") {
        editor.setWrap(true);
        wrapButton.setAttribute("aria-pressed", "true");
      }
      wrapButton.addEventListener("click", function () {
        var on = wrapButton.getAttribute("aria-pressed") !== "true";
        wrapButton.setAttribute("aria-pressed", on ? "true" : "false");
        editor.setWrap(on);
        setPref("wrap", on ? "1" : "0");
      });
      var size = pref("size");
      if (size && sizeSelect.querySelector('option[value="' + size + '"]')) sizeSelect.value = size;
      editor.setFontSize(Number(sizeSelect.value));
      sizeSelect.addEventListener("change", function () {
        editor.setFontSize(Number(sizeSelect.value));
        setPref("size", sizeSelect.value);
      });
    },
  };
})();
