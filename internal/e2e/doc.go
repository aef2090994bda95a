// Package e2e holds Faultline's end-to-end tests: the server binary runs as
// a user would start it, with a fresh database and a copy of the content,
// and Debian's Chromium, driven by chromedp, uses its pages by keyboard and
// mouse. axe-core checks every page the tests visit for accessibility
// violations.
//
// The package has no code outside its tests. The tests skip, naming what to
// install, when Chromium or axe-core is missing, except under CI (the
// environment variable CI is set), where a missing tool fails the run.
// axe-core comes from `npm ci` in web/editor; FAULTLINE_AXE may name another
// axe.min.js, and FAULTLINE_SERVER_BINARY a server binary to test instead of
// building cmd/server.
package e2e
