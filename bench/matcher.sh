#!/usr/bin/env bash
# The rubric matcher (internal/rubricmatch) against answers labelled by hand
# (internal/rubricmatch/testdata/labelled.yaml): "seems covered" scored
# against the key points a person judged covered, over the shipped
# content's phrases. Prints "precision P recall R"; exits non-zero below
# the targets (precision 0.85, recall 0.75). -v lists every disagreement.
#
# usage: bench/matcher.sh [-v]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/matcherbench "$@"
