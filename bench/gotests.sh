#!/usr/bin/env bash
# The interpreter against Go's own tests: the "// run" programs of
# $(go env GOROOT)/test and yaegi's _test programs that import only the
# allowed packages, run natively, through internal/gointerp (with its
# rewrites, as the grading child runs code) and through plain yaegi, with
# agreement on accepted programs, programs stopped at the grading child's
# limits or failed in the interpreter (both graded by the native referee in
# the product), silent divergences, refusals and false refusals (see
# bench/gotests/main.go for what each figure means).
#
# With a commit as argument, that commit's internal/gointerp is measured
# too, in the same run, and the figures are printed side by side (this
# tree's bench/gotests is built against it in a temporary worktree).
# Native and plain-yaegi results are cached (~/.cache/faultline-gotests),
# so only the first run builds every program natively.
#
# usage: bench/gotests.sh [BASE_COMMIT] [gotests flags: -j 2 -timeout 10s -list -only RE]
set -euo pipefail
cd "$(dirname "$0")/.."

base=""
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
	base=$1
	shift
fi
tmp=$(mktemp -d)
wt=""
cleanup() {
	if [ -n "$wt" ]; then git worktree remove --force "$wt" >/dev/null 2>&1 || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go mod download github.com/traefik/yaegi
go build -o "$tmp/gotests" ./bench/gotests
args=()
if [ -n "$base" ]; then
	wt="$tmp/base"
	git worktree add --detach "$wt" "$base" >/dev/null 2>&1
	rm -rf "$wt/bench/gotests"
	cp -r bench/gotests "$wt/bench/gotests"
	(cd "$wt" && go build -o "$tmp/gotests-base" ./bench/gotests)
	args=(-base "$tmp/gotests-base")
	echo "base: $base ($(git rev-parse --short "$base"))  this tree: $(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')"
fi
echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)"
"$tmp/gotests" "${args[@]}" "$@"
