#!/usr/bin/env bash
# Writes the OpenAPI document generated from the routes to a temp file and lints it with Redocly
# (rules in redocly.yaml): any error fails. No telemetry, no update check.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
doc="$(mktemp --suffix=.json)"
out="$(mktemp)"
trap 'rm -f "$doc" "$out"' EXIT
node_modules/.bin/tsx src/main.ts openapi "$doc" || exit 1
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true NO_UPDATE_NOTIFIER=1 \
  node_modules/.bin/redocly lint "$doc" --config redocly.yaml --format=stylish >"$out" 2>&1
status=$?
# Redocly's banners (Node version notices) are noise here; findings and the summary are not.
grep -v -e '[║╔╚]' -e '^$' "$out"
exit "$status"
