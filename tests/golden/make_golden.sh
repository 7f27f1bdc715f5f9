#!/usr/bin/env bash
# Makes the golden index of the current format version (docs/FORMAT.md
# "Compatibility"): tests/golden/vN/index from corpus-a.jsonl, then
# corpus-b.jsonl (an append replacing g2, so tablets hold several files and
# tombstones), then a delete of g7. Run once per frozen version with that
# version's build; a golden index is never regenerated afterwards.
# Usage: make_golden.sh path/to/dpsearch VERSION
set -euo pipefail
bin=${1:?usage: make_golden.sh DPSEARCH VERSION}
version=${2:?usage: make_golden.sh DPSEARCH VERSION}
here=$(cd "$(dirname "$0")" && pwd)
out="$here/v$version/index"
[ ! -e "$out" ] || { echo "$out exists: golden indexes are never regenerated" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
"$bin" ingest --index "$out" --bins 4 --tablets 2 --field title --field author "$here/corpus-a.jsonl"
"$bin" ingest --index "$out" "$here/corpus-b.jsonl"
"$bin" delete --index "$out" --id g7
rm -f "$out/LOCK"
"$bin" check --index "$out"
