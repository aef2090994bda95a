#!/usr/bin/env bash
# The work around a grade (issue 25), side by side in one run: the refund
# reference graded in-process, by one grading child run alone (its whole
# life's CPU and the bytes it sends back), through the web (the server's
# CPU and its children's per grade), by `server grade` as a whole process,
# and by the `go build` route (see bench/gradecost/main.go). Ratios are
# printed against the issue's targets: web CPU at most 1.5x the in-process
# grade, `server grade` at most 0.2x the go build route.
#
# With a commit as second argument, that commit's server binary is
# measured too, in the same rounds, as "before"; or give a server binary
# built elsewhere (another checkout's `go build -o /tmp/x ./cmd/server`).
#
# usage: bench/gradecost.sh [ROUNDS] [BEFORE_COMMIT|BEFORE_BINARY]   (default 5 rounds)
#   GRADES=8 sets the grades per round through the web and in-process.
# Needs Go and prlimit; about 10 s a round.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
before=${2:-}
work=$(mktemp -d)
wt=""
cleanup() {
	if [ -n "$wt" ]; then git worktree remove --force "$wt" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/server" ./cmd/server
go build -o "$work/gradecost" ./bench/gradecost
args=(-bin "$work/server" -rounds "$rounds" -grades "${GRADES:-8}")
if [ -n "$before" ] && [ -f "$before" ] && [ -x "$before" ]; then
	args+=(-before "$before")
elif [ -n "$before" ]; then
	wt="$work/before-src"
	git worktree add --detach "$wt" "$before" >/dev/null 2>&1
	(cd "$wt" && go build -o "$work/server-before" ./cmd/server)
	args+=(-before "$work/server-before")
fi
echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$work/gradecost" "${args[@]}"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
