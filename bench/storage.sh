#!/usr/bin/env bash
# Storage bounds, measured against real server binaries on loopback (each
# run with a fresh database; see bench/storagebench for what each mode does):
#   growth fresh    one address, a fresh cookie per 256 KiB code save, 15 s
#   growth answers  one address, 8 cookies submitting 60 KiB answers, 15 s
#   practice        20 concurrent views of My practice with 100 stored runs
#   class           30 people behind one address grading at once, then
#                   autosaving 10 KB every 3 s: none may be refused
# With a commit as second argument, that commit's binary is measured too,
# interleaved with this tree's, so the two see the same machine.
#
# "ops" instead measures the store itself: its hot operations per second
# on SQLite and on Postgres side by side in one run (BenchmarkStoreOps in
# internal/storage; Postgres is a throwaway cluster that internal/pgtest
# starts, so Debian's postgresql must be installed), COUNT runs each,
# medians printed with the Postgres/SQLite ratio.
#
# usage: bench/storage.sh [RUNS] [BEFORE_COMMIT]   (default 3 runs; medians printed)
#        bench/storage.sh ops [COUNT] [BENCHTIME]   (default 3 runs of 2s)
set -euo pipefail

if [ "${1:-}" = ops ]; then
	cd "$(dirname "$0")/.."
	count=${2:-3}
	benchtime=${3:-2s}
	out=$(mktemp)
	trap 'rm -f "$out"' EXIT
	echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)  runs: $count of $benchtime, 8 writers"
	go test -run '^$' -bench 'BenchmarkStoreOps' -benchtime "$benchtime" -count "$count" ./internal/storage >"$out"
	# BenchmarkStoreOps/<op>/<db>-N  iters  ns/op  X ops/s: the median X per op and db.
	awk '/^BenchmarkStoreOps\// {
		split($1, p, "/"); db = p[3]; sub(/-[0-9]+$/, "", db); op = p[2]
		for (i = 1; i <= NF; i++) if ($i == "ops/s") v = $(i-1)
		vals[op "|" db] = vals[op "|" db] " " v
		if (!(op in seen)) { seen[op] = 1; order[++n] = op }
	}
	function median(list,   a, k, i, j, t) {
		k = split(list, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		printf "%-28s %14s %14s %10s\n", "operation", "sqlite ops/s", "postgres ops/s", "pg/sqlite"
		for (i = 1; i <= n; i++) {
			op = order[i]; l = median(vals[op "|sqlite"]); g = median(vals[op "|postgres"])
			printf "%-28s %14.0f %14.0f %10.2f\n", op, l, g, (l > 0 ? g / l : 0)
		}
	}' "$out"
	exit 0
fi

runs=${1:-3}
before=${2:-}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'git worktree remove --force "$work/before-src" 2>/dev/null || true; rm -rf "$work"' EXIT

go build -trimpath -o "$work/after" ./cmd/server
go build -o "$work/storagebench" ./bench/storagebench
bins=(after)
if [ -n "$before" ]; then
	git worktree add --detach "$work/before-src" "$before" >/dev/null 2>&1
	(cd "$work/before-src" && go build -trimpath -o "$work/before" ./cmd/server)
	bins=(before after)
fi
echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)  runs: $runs"

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# field NAME of the RESULT lines in FILE
field() { grep '^RESULT' "$2" | tr ' ' '\n' | grep "^$1=" | cut -d= -f2; }

cases=("growth -mode fresh" "growth -mode answers" "practice")
for i in $(seq 1 "$runs"); do
	for c in "${cases[@]}"; do
		for b in "${bins[@]}"; do
			name="$b.${c// /_}"
			# shellcheck disable=SC2086
			"$work/storagebench" $c -server "$work/$b" >>"$work/$name.out" 2>&1
		done
		if [ "$c" = "growth -mode fresh" ]; then # the write budget alone, with no limit on new identities
			"$work/storagebench" $c -server "$work/after" -flags "-new-identities 0" >>"$work/after.budget-only.out" 2>&1
		fi
	done
	"$work/storagebench" class -server "$work/after" >>"$work/after.class.out" 2>&1
done

printf '%-34s %14s %14s %12s %14s\n' case growth_mib peak_growth wal_peak wal_after_quiet
for f in "$work"/*growth*.out "$work"/after.budget-only.out; do
	[ -e "$f" ] || continue
	printf '%-34s %14s %14s %12s %14s\n' "$(basename "$f" .out)" \
		"$(field growth_mib "$f" | median)" "$(field peak_growth_mib "$f" | median)" \
		"$(field wal_peak_mib "$f" | median)" "$(field wal_after_quiet_mib "$f" | median)"
done
printf '\n%-34s %10s %10s %14s %14s\n' case idle_mib peak_mib above_idle_mib median_view_ms
for f in "$work"/*practice*.out; do
	printf '%-34s %10s %10s %14s %14s\n' "$(basename "$f" .out)" \
		"$(field idle_mib "$f" | median)" "$(field peak_mib "$f" | median)" \
		"$(field above_idle_mib "$f" | median)" "$(field median_view_ms "$f" | median)"
done
printf '\nclass of 30 behind one address, requests refused (median): %s\n' "$(field refused "$work/after.class.out" | median)"
echo
echo "every run's RESULT line:"
grep -H '^RESULT' "$work"/*.out | sed "s|$work/||"
