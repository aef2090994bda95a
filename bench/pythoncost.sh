#!/usr/bin/env bash
# What a user's grade of the refund reference costs in Go and in Python,
# side by side, as `server grade` makes it (issue 31): the whole process
# with its grading child and (Python) zygote and lanes. The engine alone,
# without processes or the referee, is BenchmarkGradePythonVersusGo in
# internal/kits/refund.
#
# usage: bench/pythoncost.sh [ROUNDS]   (default 7; about 2 s a round)
# Needs Go and python3 (Python grading available: `server grade x.py` says).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/server" ./cmd/server
echo "go: $(go version | cut -d' ' -f3-)  cores: $(nproc)"
go run ./bench/pythoncost -bin "$work/server" -rounds "${1:-7}"
