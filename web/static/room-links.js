// The room's links page: a Copy button beside each link. Without the
// script the buttons stay hidden and the links are selected by hand.
(function () {
  "use strict";
  var status = document.getElementById("room-copy-status");
  function say(msg) { if (status) status.textContent = msg; }
  document.querySelectorAll("button[data-copy]").forEach(function (btn) {
    var input = document.getElementById(btn.dataset.copy);
    if (!input) return;
    btn.hidden = false;
    btn.addEventListener("click", function () {
      var what = btn.dataset.copy === "ilink" ? "Your link" : "The candidate's invite";
      function fallback() {
        input.focus();
        input.select();
        var ok = false;
        try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
        say(ok ? what + " is copied." : "Copying was refused: the link is selected, copy it with your keyboard.");
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(function () { say(what + " is copied."); }, fallback);
      } else {
        fallback();
      }
    });
  });
})();
