// Package faultline holds the module's own sources that the native
// referee (internal/grading's Referee) builds a submission against: the
// grading engine, the kits and what they import, with the one module they
// need from outside (gopkg.in/yaml.v3, as its module zip), so that a built
// binary or the Docker image needs only the go tool on PATH to referee,
// with no module cache and no network. A test in internal/grading checks
// that every package the native program imports is here.
package faultline

import "embed"

// NativeSources are the files a native referee program builds from, by
// their paths in the module.
//
//go:embed go.mod
//go:embed content/*.go content/README.md content/problems content/sets content/screens
//go:embed internal/faultsim/*.go internal/faultsim/native/*.go internal/faultsim/bubble/*.go
//go:embed internal/gradewire/*.go internal/textclip/*.go
//go:embed internal/grader/refundkit/*.go internal/kits/*/*.go internal/kits/*/*/*.go
//go:embed third_party/yaml.v3-v3.0.1.zip
var NativeSources embed.FS

// NativeYAMLZip is the module zip of gopkg.in/yaml.v3 in NativeSources,
// at the version go.mod requires.
const NativeYAMLZip = "third_party/yaml.v3-v3.0.1.zip"
