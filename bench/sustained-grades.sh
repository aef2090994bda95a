#!/usr/bin/env bash
# Runs lost under sustained load (issue 25): BenchmarkSustainedGrades
# grades the reference solution through the real server binary from 6
# people at 6 loopback addresses until GRADES reports (default 1500) have
# come back, and prints the system errors among them (target 0), the other
# failures, the busy answers, the grades a minute and the "taken over"
# lines the lone server logged.
#
# usage: bench/sustained-grades.sh [REV...]   (default: the working tree)
#   Each REV (a commit, a branch, or "." for the working tree) is measured
#   in turn with today's benchmark files copied in: bench/sustained-grades.sh 2b07e53 .
# GRADES=300 shortens a run; 1500 take about 3 minutes on 2 idle cores.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(.)
files=(internal/web/grading_bench_test.go internal/web/abuse_bench_test.go internal/web/sustained_bench_test.go)

for rev in "${revs[@]}"; do
	if [ "$rev" = . ]; then
		src=$root
		label=worktree
	else
		label=$(git rev-parse --short "$rev")
		src="$work/src-$label"
		mkdir -p "$src"
		git archive "$rev" | tar -x -C "$src"
		for f in "${files[@]}"; do cp "$root/$f" "$src/$f"; done
	fi
	echo "== $label"
	(cd "$src" && FAULTLINE_BENCH_GRADES="${GRADES:-1500}" go test ./internal/web -run '^$' -bench 'SustainedGrades' \
		-benchtime 1x -count 1 -timeout 120m) | grep -E '^(Benchmark|    sustained)'
done
