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

# The comparison view, loaded by the page on first use. Its CodeMirror
# imports resolve to the main bundle's modules (src/shared/), so it holds
# only @codemirror/merge itself.
./node_modules/.bin/esbuild src/merge.js \
	--bundle \
	--format=iife \
	--minify \
	--target=es2020 \
	--legal-comments=none \
	--alias:@codemirror/state=./src/shared/state.js \
	--alias:@codemirror/view=./src/shared/view.js \
	--alias:@codemirror/language=./src/shared/language.js \
	--alias:@lezer/highlight=./src/shared/highlight.js \
	--alias:style-mod=./src/shared/style-mod.js \
	--banner:js="/* Faultline comparison bundle, built from web/editor by build.sh. Includes @codemirror/merge (MIT, Marijn Haverbeke and others); runs on the CodeMirror of editor.js. */" \
	--charset=utf8 \
	--log-level=warning \
	--outfile=../static/editor-merge.js

for f in editor.js editor-merge.js; do
	size=$(gzip -9 -c "../static/$f" | wc -c)
	echo "web/static/$f: $(wc -c <"../static/$f") bytes, $size bytes gzip -9"
done
