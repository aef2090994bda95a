// Package web holds the static assets of the site (CSS and a little
// JavaScript), embedded in the binary. Pages themselves are templ components
// in internal/web.
package web

import "embed"

// Static holds the files under static/, served at /static/.
//
//go:embed static
var Static embed.FS
