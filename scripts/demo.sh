#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, indexes a
# real corpus every Debian machine has (/usr/share/doc, as a directory tree)
# and shows what the engine does so far.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build >/dev/null
bin=build/dpsearch
index=${DEMO_INDEX:-build/demo-index}
corpus=${DEMO_CORPUS:-/usr/share/doc}

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }

rm -rf "$index"
step "$bin" ingest --index "$index" --format dir --skip-bad "$corpus"
step "$bin" stats --index "$index" --top 10
echo
echo "Every posting of the term 'license' in bin 0 (bin, term, docid, weight):"
("$bin" scan --index "$index" --bin 0 --term license || true) | head -5
step "$bin" query --index "$index" --limit 5 --format text "license gpl"
step "$bin" query --index "$index" --count "debian AND (policy OR manual) -perl"
step "$bin" query --index "$index" --limit 3 --stats --format tsv "copyright"
step "$bin" check --index "$index"
first=$( ("$bin" scan --index "$index" --docs --bin 0 || true) | head -1 | cut -f3)
step "$bin" delete --index "$index" --id "$first"
step "$bin" compact --index "$index"
step "$bin" check --index "$index"
