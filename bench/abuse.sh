#!/usr/bin/env bash
# Reproduces the two ways one client could deny grading or the site to
# everyone else, through the real server binary on loopback:
#   BenchmarkGradingMonopoly   30 fresh identities at 127.0.0.1 press Grade on
#                              an endless loop, over and over; a person at
#                              127.0.0.2 grades the reference solution: the
#                              seconds to their report (60: none in 60 s).
#   BenchmarkGradingManyAddresses  3 identities at each of 10 addresses
#                              (127.0.0.2-11) press Grade on an endless loop;
#                              a person at 127.0.0.12 grades the reference:
#                              the seconds to their report (target under 25,
#                              the README's one running job; 120: none).
#   BenchmarkPagesWhileGrading a page's throughput and p99 under 4 busy
#                              clients, and /healthz's p99 alone, idle and
#                              with 10 addresses grading endless loops.
#   BenchmarkTwentyGradesAtOnce 20 people at 20 addresses press Grade at once.
# Each iteration starts a server of its own; the figures are medians.
#
# usage: bench/abuse.sh [REV...]   (default: the working tree)
#   Each REV (a commit, a branch, "." for the working tree, or the path of a
#   server binary already built) is measured in turn with today's benchmark
#   files copied in (a binary: by the working tree's benchmarks), so an old
#   and a new build are compared by the same reproduction, one after the
#   other on the same machine: bench/abuse.sh fe3d7dd .
#   or bench/abuse.sh /tmp/faultline-main .
# ITERATIONS (default 3) sets -benchtime; BENCH (a -bench pattern) picks
# some of the benchmarks: BENCH=ManyAddresses bench/abuse.sh main . Needs git and Go; takes about 5
# minutes a build (an old build's monopoly runs waits 60 s each).
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(.)
files=(internal/web/grading_bench_test.go internal/web/abuse_bench_test.go)

for rev in "${revs[@]}"; do
	server=
	if [ "$rev" = . ]; then
		src=$root
		label=worktree
	elif [ -f "$rev" ] && [ -x "$rev" ]; then
		src=$root
		label=$rev
		server=$(cd "$(dirname "$rev")" && pwd)/$(basename "$rev")
	else
		label=$(git rev-parse --short "$rev")
		src="$work/src-$label"
		mkdir -p "$src"
		git archive "$rev" | tar -x -C "$src"
		for f in "${files[@]}"; do cp "$root/$f" "$src/$f"; done
	fi
	echo "== $label"
	(cd "$src" && FAULTLINE_BENCH_SERVER=$server go test ./internal/web -run '^$' -bench "${BENCH:-GradingMonopoly|GradingManyAddresses|PagesWhileGrading|TwentyGradesAtOnce}" \
		-benchtime "${ITERATIONS:-3}x" -count 1 -timeout 60m) | grep -E '^(Benchmark|    abuse)'
done
