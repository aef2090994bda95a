// The editor's parts that a page does not need until the candidate uses
// them, each a bundle of its own (build.sh): the diagnostics (lint), search
// and replace (search), bracket closing (complete), and the shared editor
// of a live screen (collab, which room pages link after editor.js). A part
// runs on this bundle's CodeMirror (src/shared/) and registers itself in
// FaultlineEditor.parts under its name.

// partURLs maps each lazily loaded part to its URL with its content hash,
// as internal/web serves it (/static/NAME?v=HASH, cacheable for a year).
// build.sh builds the parts first and defines FAULTLINE_PARTS; a build
// without it (a test) has no parts to load.
export const partURLs =
  typeof FAULTLINE_PARTS === "object" && FAULTLINE_PARTS !== null
    ? FAULTLINE_PARTS
    : {};

// pageNonce is the Content-Security-Policy nonce the page gave this
// script's own tag. CodeMirror styles itself with <style> elements it adds
// at run time, which a policy without 'unsafe-inline' blocks unless they
// carry the nonce. It must be read now: currentScript is null once the
// bundle has finished running.
export const pageNonce =
  (typeof document !== "undefined" &&
    document.currentScript &&
    document.currentScript.nonce) ||
  "";

// parts holds the parts loaded so far, by name; each part's bundle adds
// itself (window.FaultlineEditor.parts is this object).
export const parts = {};

const loading = {};

/**
 * loadPart resolves to the named part, loading its bundle the first time
 * (one <script> for the whole page, however many editors ask). A failed
 * load rejects, and the next call tries again.
 *
 * @param {string} name lint, search or complete
 */
export function loadPart(name) {
  if (parts[name]) return Promise.resolve(parts[name]);
  if (loading[name]) return loading[name];
  const url = partURLs[name];
  if (!url) return Promise.reject(new Error("FaultlineEditor: no part named " + name));
  loading[name] = new Promise((resolve, reject) => {
    const s = document.createElement("script");
    s.src = url;
    if (pageNonce) s.nonce = pageNonce;
    s.onload = () => {
      if (parts[name]) resolve(parts[name]);
      else fail(new Error("FaultlineEditor: " + url + " did not define the " + name + " part"));
    };
    s.onerror = () => fail(new Error("FaultlineEditor: could not load " + url));
    function fail(err) {
      loading[name] = null;
      s.remove();
      reject(err);
    }
    document.head.appendChild(s);
  });
  return loading[name];
}
