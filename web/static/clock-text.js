// clock-text.js: how a clock reads, on screen and aloud, for the scripts
// that draw one (timed-answer.js's box, run-clock.js's overall clock), so
// the two say the same time in the same words. Pages load it before them.
(function () {
  "use strict";

  window.FaultlineClockText = {
    // text is m:ss. A countdown (down) shows the next whole second up, so
    // 0:00 only at the end; time used shows the whole seconds passed.
    text: function (ms, down) {
      var s = Math.max(0, down ? Math.ceil(ms / 1000) : Math.floor(ms / 1000));
      var m = Math.floor(s / 60);
      s = s % 60;
      return m + ":" + (s < 10 ? "0" : "") + s;
    },
    // spoken is what a screen reader is told at one of the moments a
    // countdown announces, s seconds before its end.
    spoken: function (s) {
      if (s >= 60) { return s / 60 === 1 ? "1 minute left" : (s / 60) + " minutes left"; }
      return s + " seconds left";
    }
  };
})();
