#!/usr/bin/env bash
# Measures what the code problem's page costs on the wire, as a browser that
# accepts gzip and brotli would fetch it: the HTML, then every stylesheet and
# script it links, each counted as the bytes curl downloaded (so compressed
# when the server compressed). It then grades the starter once and counts the
# page's HTML again, which now carries the report: on the wire, and raw (as
# the browser holds it; the issue's limit is 200 KB).
#
# usage: bench/wire-bytes.sh [REV...]   (default: the working tree)
#   Each REV (a commit, a branch, or "." for the working tree) is built and
#   measured in turn, so an old and a new build are compared in one run on
#   the same machine: bench/wire-bytes.sh 2c9f24d .
# ACCEPT_ENCODING=gzip (or identity) measures another client. Needs curl and
# git; serves on a random loopback port.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(.)
accept=${ACCEPT_ENCODING:-gzip, br} # what the client says it takes
slug=async-refund

bytes() { # url [curl args...]: bytes on the wire
	local url=$1
	shift
	curl -fsS -o /dev/null -w '%{size_download}' -H "Accept-Encoding: $accept" "$@" "$url"
}

printf '%-12s %10s %10s %10s %10s %12s %14s %14s\n' build html_B css_B js_B page_B encodings html_after_grade_B after_grade_raw_B
for rev in "${revs[@]}"; do
	src="$work/src-$rev"
	mkdir -p "$src"
	if [ "$rev" = . ]; then
		src=$root
		label=worktree
	else
		git archive "$rev" | tar -x -C "$src"
		label=$(git rev-parse --short "$rev")
	fi
	(cd "$src" && go build -trimpath -o "$work/faultline-$label" ./cmd/server)
	port=$((20000 + RANDOM % 20000))
	base="http://127.0.0.1:$port"
	"$work/faultline-$label" serve -addr "127.0.0.1:$port" -db "$work/db-$label/faultline.db" -graders 1 2>"$work/log-$label" &
	pid=$!
	until curl -fs -o /dev/null "$base/healthz"; do
		kill -0 "$pid" 2>/dev/null || { echo "server exited; log:" >&2; cat "$work/log-$label" >&2; exit 1; }
		sleep 0.01
	done

	jar="$work/jar-$label"
	html=$(bytes "$base/problems/$slug" -c "$jar" -b "$jar")
	page=$(curl -fsS -b "$jar" "$base/problems/$slug")
	css=0
	js=0
	encodings=""
	for href in $(printf '%s' "$page" | grep -o '<link rel="stylesheet" href="[^"]*"' | sed 's/.*href="//; s/"$//; s/&amp;/\&/g'); do
		css=$((css + $(bytes "$base$href")))
	done
	for src_url in $(printf '%s' "$page" | grep -o '<script[^>]* src="[^"]*"' | sed 's/.* src="//; s/"$//; s/&amp;/\&/g'); do
		js=$((js + $(bytes "$base$src_url")))
		enc=$(curl -fsS -o /dev/null -D - -H "Accept-Encoding: $accept" "$base$src_url" | tr -d '\r' | awk -F': ' 'tolower($1)=="content-encoding" {print $2}')
		encodings="${encodings:+$encodings,}${enc:-identity}"
	done

	# One Grade of the starter, as the plain form sends it; the run page
	# carries a Refresh header until the report is in.
	run=$(curl -fsS -o /dev/null -w '%{redirect_url}' -b "$jar" -c "$jar" \
		--data-urlencode "code@$src/content/problems/$slug/starter/refund.go" "$base/problems/$slug/grade")
	for _ in $(seq 1 600); do
		curl -fsS -o /dev/null -D - -b "$jar" "$run" | grep -qi '^refresh:' || break
		sleep 0.1
	done
	after=$(bytes "$base/problems/$slug" -b "$jar")
	after_raw=$(curl -fsS -o /dev/null -w '%{size_download}' -H 'Accept-Encoding: identity' -b "$jar" "$base/problems/$slug")

	printf '%-12s %10d %10d %10d %10d %12s %14d %14d\n' "$label" "$html" "$css" "$js" $((html + css + js)) "$(printf '%s' "$encodings" | tr ',' '\n' | sort -u | paste -sd,)" "$after" "$after_raw"
	kill -TERM "$pid"
	wait "$pid" 2>/dev/null || true
	pid=""
done
