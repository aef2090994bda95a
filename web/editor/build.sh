#!/bin/sh
# Builds the CodeMirror editor bundle web/static/editor.js from src/main.js.
# The output is committed, so `go run` needs no Node; CI runs this script and
# then `git diff --exit-code web/static/editor.js` to catch a stale bundle.
# Same sources and lock file -> byte-identical output.
set -eu
cd "$(dirname "$0")"

if [ ! -d node_modules ]; then
	npm ci --no-audit --no-fund
fi

# Unit tests of the pure parts (diagnostic positions) before bundling.
node --test --test-reporter=dot test/

./node_modules/.bin/esbuild src/main.js \
	--bundle \
	--format=iife \
	--minify \
	--target=es2020 \
	--legal-comments=none \
	--banner:js="/* Faultline editor bundle, built from web/editor by build.sh. Includes CodeMirror 6 and Lezer (MIT, Marijn Haverbeke and others), style-mod, crelt, w3c-keyname (MIT). */" \
	--charset=utf8 \
	--log-level=warning \
	--outfile=../static/editor.js

size=$(gzip -9 -c ../static/editor.js | wc -c)
echo "web/static/editor.js: $(wc -c <../static/editor.js) bytes, $size bytes gzip -9"
