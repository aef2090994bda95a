#!/usr/bin/env bash
# What the native referee adds to a Grade (internal/grading's
# BenchmarkReferee): the create-client problem's reference graded through
# the real grading child, then built natively with the go tool and graded
# again, side by side with the interpreted grade alone:
#   interpreted     the grade without the referee (grade-ms)
#   warm            with the referee, its build cache holding the engine and
#                   the kits (a server after referee-warm or its first grade)
#   warm-stateful   the same with package state: one copy per worker
#   cold            an empty build cache every iteration: a server's first
#                   referee build with no referee-warm
# build-ms and run-ms are the referee's go build and native grade;
# referee-ms is their sum, what a Grade waits for beyond the interpreter.
#
# usage: bench/referee.sh [ITERATIONS]   (default 6; cold runs once)
# Needs Go and prlimit; takes about 30 s warm and a minute or two cold.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-6}
go test -run '^$' -bench 'BenchmarkReferee/(interpreted|warm)' -benchtime "${n}x" ./internal/grading | grep -E '^Benchmark|^ok|FAIL'
go test -run '^$' -bench 'BenchmarkReferee/cold' -benchtime 1x ./internal/grading | grep -E '^Benchmark|^ok|FAIL'
