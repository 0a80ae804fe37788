#!/usr/bin/env bash
# Builds the results site (site/dist/) from the chosen runs (default: every run under runs/):
# stages an allowlist of run files, refuses to publish if any holds a secret, then runs
# `astro build`. ./make_site.sh --help lists the options and exit codes.
set -euo pipefail
cd "$(dirname "$0")"
export ASTRO_TELEMETRY_DISABLED=1
if [[ ! -x node_modules/.bin/tsx ]]; then
  echo "make_site: dependencies are not installed; run npm ci first" >&2
  exit 2
fi
exec node_modules/.bin/tsx site/scripts/make-site.ts "$@"
