#!/usr/bin/env bash
# Measures the server's start-up with all content loaded: the time from exec
# to the first 200 on /healthz, and the resident memory (VmRSS, VmHWM from
# /proc/PID/status) right after. Each run uses a fresh database, so it
# includes creating the file and applying the migrations.
#
# usage: bench/startup.sh [RUNS]   (default 10; needs curl)
set -euo pipefail

runs=${1:-10}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -trimpath -o "$work/faultline" ./cmd/server
port=$((20000 + RANDOM % 20000))
echo "go: $(go version | cut -d' ' -f3-)  cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)  cores: $(nproc)"
printf '%-4s %10s %10s %10s\n' run start_ms rss_mib hwm_mib

starts=()
rsss=()
for i in $(seq 1 "$runs"); do
	db="$work/run$i/faultline.db"
	t0=$(date +%s%N)
	"$work/faultline" serve -addr "127.0.0.1:$port" -db "$db" 2>"$work/log$i" &
	pid=$!
	until curl -fs -o /dev/null "http://127.0.0.1:$port/healthz"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "server exited; log:" >&2
			cat "$work/log$i" >&2
			exit 1
		fi
		sleep 0.002
	done
	t1=$(date +%s%N)
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
	hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")
	kill -TERM "$pid"
	wait "$pid"
	ms=$(((t1 - t0) / 1000000))
	starts+=("$ms")
	rsss+=("$rss")
	printf '%-4s %10d %10.1f %10.1f\n' "$i" "$ms" "$(echo "$rss / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)"
done

summary() { # name unit values...
	local name=$1 unit=$2
	shift 2
	printf '%s\n' "$@" | sort -n | awk -v name="$name" -v unit="$unit" '
		{ v[NR] = $1 }
		END { printf "%s: min %s, median %s, max %s %s (n=%d)\n", name, v[1], v[int((NR + 1) / 2)], v[NR], unit, NR }'
}
summary "start-up to first /healthz 200" ms "${starts[@]}"
summary "VmRSS after start-up" KiB "${rsss[@]}"
