// Package web holds the static assets of the site (CSS and a little
// JavaScript), embedded in the binary. Pages themselves are templ components
// in internal/web.
package web

import "embed"

// Static holds the files under static/, served at /static/. Beside each
// text file is its brotli form at the best quality, NAME.br, made by
// go generate (after editing a file here, run it: internal/web's
// TestPrecompressedAssetsCurrent fails on a stale form).
//
//go:generate go run ../internal/web/precompress static
//go:embed static
var Static embed.FS
