#!/usr/bin/env bash
# Live screens across server instances (issue 13): the roombench load of
# bench/rooms.sh, measured side by side, interleaved, in three set-ups:
#   sqlite    one instance on a SQLite file (the default deployment);
#   pg-1      one instance on Postgres (events woken through LISTEN/NOTIFY);
#   pg-2      two instances on one Postgres, each room's interviewer on the
#             first and its candidate on the second: every keystroke is
#             pushed to one instance and delivered by the other.
# Each run gets a fresh database. Printed per set-up and level: the delay
# from a push sent to the interviewer's stream delivering it (p50, p99,
# worst), from the keystroke (p99), the servers' CPU (summed, of 200%),
# errors, and every run's RESULT line.
#
# Postgres: FAULTLINE_BENCH_POSTGRES=postgres://user@host:port names a
# running server whose user may create databases; without it a throwaway
# cluster is started on a free loopback port in a temporary directory (as
# the postgres user when run as root) and stopped at the end.
#
# usage: bench/rooms-instances.sh [RUNS]   (default 2)
#   LEVELS="10 50" WINDOW=20 SETUPS="sqlite pg-1 pg-2" override.
set -euo pipefail

runs=${1:-2}
levels=${LEVELS:-10 50}
window=${WINDOW:-20}
setups=${SETUPS:-sqlite pg-1 pg-2}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
chmod 755 "$work"
pgdata=""
cleanup() {
	if [ -n "$pgdata" ]; then
		as_pg pg_ctl -D "$pgdata" -m immediate stop >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

as_pg() {
	if [ "$(id -u)" = 0 ]; then
		su postgres -s /bin/sh -c "PATH=$pgbin:\$PATH $(printf '%q ' "$@")"
	else
		PATH="$pgbin:$PATH" "$@"
	fi
}

pg=${FAULTLINE_BENCH_POSTGRES:-}
if [ -z "$pg" ] && [[ " $setups " == *" pg-"* ]]; then
	pgbin=$(dirname "$(readlink -f "$(command -v pg_ctl || ls /usr/lib/postgresql/*/bin/pg_ctl | sort -V | tail -1)")")
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	pgdata="$work/pgdata"
	mkdir -p "$pgdata"
	[ "$(id -u)" = 0 ] && chown postgres "$pgdata"
	as_pg initdb -D "$pgdata" -A trust -U postgres >/dev/null
	as_pg pg_ctl -D "$pgdata" -o "-p $port -k $pgdata -c listen_addresses=127.0.0.1 -c fsync=off" -l "$pgdata/log" -w start >/dev/null
	pg="postgres://postgres@127.0.0.1:$port"
fi

go build -trimpath -o "$work/server" ./cmd/server
go build -o "$work/roombench" ./bench/roombench
echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)  runs: $runs  window: ${window}s  load: $(cut -d' ' -f1-3 /proc/loadavg)"

# fresh_db NAME makes an empty database and prints its URL.
fresh_db() {
	psql -q -v ON_ERROR_STOP=1 "$pg/postgres" -c "CREATE DATABASE $1" >/dev/null
	echo "$pg/$1"
}

for i in $(seq 1 "$runs"); do
	for n in $levels; do
		for s in $setups; do
			case $s in
			sqlite) args=() ;;
			pg-1) db=$(fresh_db "bench_${i}_${n}_1") && args=(-db "$db") ;;
			pg-2) db=$(fresh_db "bench_${i}_${n}_2") && args=(-db "$db" -instances 2) ;;
			*) echo "unknown set-up $s" >&2; exit 2 ;;
			esac
			"$work/roombench" -server "$work/server" -rooms "$n" -seconds "$window" "${args[@]}" \
				>>"$work/$s.$n.out" 2>>"$work/$s.$n.err" || echo "run $i, $s, $n rooms failed: $(tail -1 "$work/$s.$n.err")"
		done
	done
done

runs_of() { grep '^RESULT' "$2" | tr ' ' '\n' | grep "^$1=" | cut -d= -f2 | paste -sd/ -; }

printf '%-7s %5s %6s %13s %15s %15s %15s %13s %11s\n' setup rooms keys/s p50_ms p99_ms max_ms key_p99_ms cpu_pct errors
for n in $levels; do
	for s in $setups; do
		f="$work/$s.$n.out"
		[ -s "$f" ] || continue
		errors=$(grep '^RESULT' "$f" | tr ' ' '\n' | grep -E '^(undelivered|push_errors|cursor_errors|stream_drops)=' |
			cut -d= -f2 | paste -sd+ - | bc)
		printf '%-7s %5s %6s %13s %15s %15s %15s %13s %11s\n' "$s" "$n" \
			"$(runs_of per_second "$f" | cut -d/ -f1)" "$(runs_of p50_ms "$f")" "$(runs_of p99_ms "$f")" \
			"$(runs_of max_ms "$f")" "$(runs_of key_p99_ms "$f")" "$(runs_of server_cpu_pct "$f")" "$errors"
	done
done
echo
echo "every run's RESULT line:"
grep -H '^RESULT' "$work"/*.out | sed "s|$work/||"
grep -H 'server:' "$work"/*.err 2>/dev/null | sed "s|$work/||" | head -20 || true
