#!/bin/sh
# Builds the CodeMirror editor bundle web/static/editor.js from src/main.js,
# and the bundles it loads apart (web/static/editor-*.js).
# The output is committed, so `go run` needs no Node; CI runs this script and
# then `git diff --exit-code` on web/static/editor*.js to catch a stale bundle.
# Same sources and lock file -> byte-identical output.
set -eu
cd "$(dirname "$0")"

if [ ! -d node_modules ]; then
	npm ci --no-audit --no-fund
fi

# Unit tests of the pure parts (diagnostic positions) before bundling.
node --test --test-reporter=dot test/

# aliases point a bundle loaded apart from editor.js at the main bundle's
# CodeMirror (src/shared/), so it holds only its own package.
aliases="--alias:@codemirror/state=./src/shared/state.js
--alias:@codemirror/view=./src/shared/view.js
--alias:@codemirror/language=./src/shared/language.js
--alias:@lezer/highlight=./src/shared/highlight.js
--alias:style-mod=./src/shared/style-mod.js"

# The parts the editor loads on first use (src/parts.js): lint, search and
# bracket closing; and the shared editor, which only room pages link.
parts=""
for part in lint search complete collab; do
	# shellcheck disable=SC2086 # $aliases is a list of flags
	./node_modules/.bin/esbuild "src/part-$part.js" \
		--bundle \
		--format=iife \
		--minify \
		--target=es2020 \
		--legal-comments=none \
		$aliases \
		--banner:js="/* Faultline editor part \"$part\", built from web/editor by build.sh (MIT-licensed CodeMirror 6 packages); runs on the CodeMirror of editor.js. */" \
		--charset=utf8 \
		--log-level=warning \
		--outfile="../static/editor-$part.js"
	# The URL internal/web serves it at: the first 12 hex digits of the
	# file's SHA-256 are its version (static.go), so the part can be
	# cached for a year and a new build changes the link.
	hash=$(sha256sum "../static/editor-$part.js" | cut -c1-12)
	if [ "$part" != collab ]; then
		parts="$parts${parts:+,}\"$part\":\"/static/editor-$part.js?v=$hash\""
	fi
done

./node_modules/.bin/esbuild src/main.js \
	--bundle \
	--format=iife \
	--minify \
	--target=es2020 \
	--legal-comments=none \
	--define:FAULTLINE_PARTS="{$parts}" \
	--banner:js="/* Faultline editor bundle, built from web/editor by build.sh. Includes CodeMirror 6 and Lezer (MIT, Marijn Haverbeke and others), style-mod, crelt, w3c-keyname (MIT). */" \
	--charset=utf8 \
	--log-level=warning \
	--outfile=../static/editor.js

# The comparison view, loaded by the page on first use. Its CodeMirror
# imports resolve to the main bundle's modules (src/shared/), so it holds
# only @codemirror/merge itself.
# shellcheck disable=SC2086
./node_modules/.bin/esbuild src/merge.js \
	--bundle \
	--format=iife \
	--minify \
	--target=es2020 \
	--legal-comments=none \
	$aliases \
	--banner:js="/* Faultline comparison bundle, built from web/editor by build.sh. Includes @codemirror/merge (MIT, Marijn Haverbeke and others); runs on the CodeMirror of editor.js. */" \
	--charset=utf8 \
	--log-level=warning \
	--outfile=../static/editor-merge.js

# Brotli at its best, made once here rather than at every start of the
# server (internal/web/precompress): NAME.br beside each file of web/static.
(cd ../.. && go run ./internal/web/precompress web/static)

bundles="editor.js editor-merge.js editor-lint.js editor-search.js editor-complete.js editor-collab.js"
for f in $bundles; do
	size=$(gzip -9 -c "../static/$f" | wc -c)
	echo "web/static/$f: $(wc -c <"../static/$f") bytes, $size bytes gzip -9"
done
