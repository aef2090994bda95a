#!/usr/bin/env bash
# Live screens under load, against real server binaries on loopback (see
# bench/roombench for what a room does): at each level, that many rooms at
# once, in each a candidate typing 5 keystrokes a second into the shared
# editor (one push per keystroke, as the browser's collab transport sends
# them, the cursor riding with it) and an interviewer following the room's
# stream. Each level runs 3 s of warm-up and a 20 s window with a fresh
# server and database. Printed per level: the delay from a push sent to the
# interviewer's stream delivering it (p50, p99, worst), from the keystroke
# (p99), the server's memory (RSS, Go heap), its CPU (of 200% on 2 cores),
# errors and the load average; every run's figure, so the spread shows.
# With a commit as second argument, that commit's binary is measured too,
# interleaved with this tree's, so the two see the same machine;
# BEFORE_FLAGS are roombench flags for that build alone (for a build from
# before the cursor rode with the push: BEFORE_FLAGS=-cursor-in-push=false,
# so each keystroke is a push and a cursor report, as its editor sent them).
#
# Many open streams (issue 26): STREAMS=2000 keeps that many streams open
# through the window beside the typing rooms (idle rooms, an interviewer
# and a candidate following each: roombench -idle-rooms), and FLOOD=N
# opens N more at once from one candidate's link and address (roombench
# -flood): the table then shows the streams open, the server's file
# descriptors, and how many of the flood the server took and refused
# (429). For example, with 5 typing rooms and 1,990 idle streams:
#   LEVELS=5 STREAMS=2000 FLOOD=2000 bench/rooms.sh 1 [BEFORE_COMMIT]
#
# usage: bench/rooms.sh [RUNS] [BEFORE_COMMIT]   (default 2 runs)
#   LEVELS="10 50 100 200" WINDOW=20 ROOMBENCH_FLAGS="-cursors=false" BEFORE_FLAGS=... override.
set -euo pipefail

runs=${1:-2}
before=${2:-}
levels=${LEVELS:-10 50 100 200}
window=${WINDOW:-20}
streams=${STREAMS:-0}
flood=${FLOOD:-0}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'git worktree remove --force "$work/before-src" 2>/dev/null || true; rm -rf "$work"' EXIT

go build -trimpath -o "$work/after" ./cmd/server
go build -o "$work/roombench" ./bench/roombench
bins=(after)
if [ -n "$before" ]; then
	git worktree add --detach "$work/before-src" "$before" >/dev/null 2>&1
	(cd "$work/before-src" && go build -trimpath -o "$work/before" ./cmd/server)
	bins=(before after)
fi
echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)  runs: $runs  window: ${window}s  load: $(cut -d' ' -f1-3 /proc/loadavg)"

for i in $(seq 1 "$runs"); do
	for n in $levels; do
		for b in "${bins[@]}"; do
			extra=""
			[ "$b" = before ] && extra=${BEFORE_FLAGS:-}
			# The idle rooms make up STREAMS beside the typing rooms' 2n.
			idle=$(((streams - 2 * n + 1) / 2))
			[ "$idle" -gt 0 ] && extra="$extra -idle-rooms $idle"
			[ "$flood" -gt 0 ] && extra="$extra -flood $flood"
			# shellcheck disable=SC2086
			"$work/roombench" -server "$work/$b" -rooms "$n" -seconds "$window" ${ROOMBENCH_FLAGS:-} $extra \
				>>"$work/$b.$n.out" 2>>"$work/$b.$n.err" || echo "run $i, $b, $n rooms failed: $(tail -1 "$work/$b.$n.err")"
		done
	done
done

# every run's value of field NAME in FILE, joined by "/"
runs_of() { grep '^RESULT' "$2" | tr ' ' '\n' | grep "^$1=" | cut -d= -f2 | paste -sd/ -; }

printf '%-7s %5s %6s %13s %15s %15s %15s %13s %13s %13s %11s %13s %8s %8s %11s\n' \
	build rooms keys/s p50_ms p99_ms max_ms key_p99_ms rss_mib heap_mib cpu_pct errors load1 streams fds flood_ok/429
for n in $levels; do
	for b in "${bins[@]}"; do
		f="$work/$b.$n.out"
		[ -s "$f" ] || continue
		errors=$(grep '^RESULT' "$f" | tr ' ' '\n' | grep -E '^(undelivered|push_errors|cursor_errors|stream_drops)=' |
			cut -d= -f2 | paste -sd+ - | bc)
		printf '%-7s %5s %6s %13s %15s %15s %15s %13s %13s %13s %11s %13s %8s %8s %11s\n' "$b" "$n" \
			"$(runs_of per_second "$f" | cut -d/ -f1)" "$(runs_of p50_ms "$f")" "$(runs_of p99_ms "$f")" \
			"$(runs_of max_ms "$f")" "$(runs_of key_p99_ms "$f")" "$(runs_of rss_mib "$f")" \
			"$(runs_of heap_peak_mib "$f")" "$(runs_of server_cpu_pct "$f")" "$errors" "$(runs_of load1 "$f" | cut -d/ -f1)" \
			"$(runs_of open_streams "$f")" "$(runs_of server_fds "$f")" "$(runs_of flood_ok "$f")/$(runs_of flood_429 "$f")"
	done
done
echo
echo "every run's RESULT line:"
grep -H '^RESULT' "$work"/*.out | sed "s|$work/||"
grep -H 'server:' "$work"/*.err 2>/dev/null | sed "s|$work/||" | head -20 || true
