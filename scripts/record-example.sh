#!/usr/bin/env bash
# Regenerates the committed example run (runs/example-sim) and the README's picture of it.
#
# The example is the smoke manifest recorded on the SIMULATED population, so a fresh clone's
# ./make_site.sh builds a real site. It goes stale when prompts, the corpus or the run formats
# change (the example check in the tests says so); this script is the cure. It records into a
# scratch folder first and swaps it in only when every step succeeded, so a failed recording
# never leaves the committed example half-replaced. Graded trees are not kept (they are
# ignored by git), and the journal's caveat records the commit it was recorded at.
set -euo pipefail
cd "$(dirname "$0")/.."

run=runs/example-sim
scratch=.tmp/example/runs/example-sim
site=.tmp/example-site
rm -rf .tmp/example "$site"
mkdir -p .tmp/example/runs

npx tsx harness/cli.ts sandbox build
npx tsx harness/cli.ts record manifests/smoke.yaml --out "$scratch"
rm -rf "$scratch"/cells/*/tree
npx tsx harness/cli.ts report "$scratch"
npx tsx site/scripts/example-check.ts .tmp/example

rm -rf "$run"
mv "$scratch" "$run"
./make_site.sh --out "$site" "$run"
mkdir -p docs
npx tsx site/scripts/sweep-picture.ts "$site" example-sim docs/sweep-page.png
du -sh "$run"
echo "example: $run and docs/sweep-page.png regenerated; commit both."
