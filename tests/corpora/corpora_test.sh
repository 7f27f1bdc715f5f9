#!/usr/bin/env bash
# Integration test against real corpora: builds the normalized corpora of
# ../shared/corpora/queries/*.tsv into a cache outside the repository (once),
# ingests each, and checks every query's match count against the expected
# count. Queries the normalized corpora cannot answer like an ICU analyzer
# are skipped and counted: runs of Chinese/Japanese/Thai (kept whole by the
# normalizer, segmented by ICU) and characters whose case folding differs
# from lowercasing. Skips (exit 0 with a message) when the corpora cannot
# be fetched.
# Usage: corpora_test.sh path/to/dpsearch
set -uo pipefail
bin=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared=${DPS_SHARED:-$repo/../shared}
cache=${DPS_CORPORA_CACHE:-$HOME/.cache/dpsearch/corpora}
if [ ! -d "$shared/corpora/queries" ]; then
  echo "SKIP: $shared/corpora not found"; exit 0
fi
mkdir -p "$cache"
names=()
for q in "$shared"/corpora/queries/*.tsv; do
  case $q in *.phrases.tsv) continue ;; esac  # phrase queries: dpsearch has no phrase search
  names+=("$(basename "$q" .tsv)")
done
missing=()
for n in "${names[@]}"; do [ -s "$cache/$n.norm.jsonl" ] || missing+=("$n"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "building corpora ${missing[*]} into $cache"
  if ! (cd "$shared/corpora" && ./build_all.sh "$cache" "${missing[@]}") > "$cache/build.log" 2>&1; then
    echo "SKIP: could not fetch/build the corpora (see $cache/build.log)"; tail -3 "$cache/build.log"; exit 0
  fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for n in "${names[@]}"; do
  "$bin" ingest --index "$work/$n" --no-store-text "$cache/$n.norm.jsonl" 2>"$work/$n.err" || { cat "$work/$n.err"; fail=1; continue; }
  # Keep the queries every engine answers alike; count the others.
  python3 - "$shared/corpora/queries/$n.tsv" "$work/$n.q" <<'PY'
import sys, unicodedata
keep = skip = 0
with open(sys.argv[1], encoding='utf-8') as f, open(sys.argv[2], 'w', encoding='utf-8') as out:
    for line in f:
        qid, terms, expected = line.rstrip('\n').split('\t')
        def unsegmented(ch):
            name = unicodedata.name(ch, '')
            return any(s in name for s in ('CJK', 'HIRAGANA', 'KATAKANA', 'THAI', 'LAO', 'KHMER', 'MYANMAR', 'HANGUL'))
        odd = any(unsegmented(c) for c in terms) or unicodedata.normalize('NFKC', terms.casefold()) != terms
        if odd:
            skip += 1
            continue
        keep += 1
        out.write(f"{qid}\t{terms}\t{expected}\n")
print(f"{keep} queries kept, {skip} skipped (CJK/Thai runs or case folding differs)")
PY
  "$bin" query --index "$work/$n" --queries "$work/$n.q" > "$work/$n.out" 2>"$work/$n.qerr"
  bad=$(paste "$work/$n.out" "$work/$n.q" | awk -F'\t' '$2 != $6' | tee "$work/$n.bad" | wc -l)
  total=$(wc -l < "$work/$n.q")
  if [ "$bad" -ne 0 ]; then
    echo "FAIL: $n: $bad of $total queries have wrong counts:"; head -5 "$work/$n.bad"; fail=1
  else
    echo "ok: $n: $total queries, every count as expected"
  fi
done
[ $fail -eq 0 ] && echo "corpora test passed" || { echo "corpora test FAILED"; exit 1; }
